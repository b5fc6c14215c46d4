/** Runs sweep points on a Hazelcast cluster: embedded members, one task per point on its executor service. */
package dev.rdmasim.sweep.hazelcast;
