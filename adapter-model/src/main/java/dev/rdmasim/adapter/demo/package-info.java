/**
 * A runnable demonstration of the adapter model: two hosts stream RDMA WRITEs to each other and
 * the run leaves a waveform, a packet capture and statistics to look at.
 */
package dev.rdmasim.adapter.demo;
