/**
 * The NDK provider interface front end: NDKPI objects and calls turned into WQE writes and doorbells. Empty until the adapter model exists.
 */
package dev.rdmasim.ndk;
