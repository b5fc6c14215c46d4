/**
 * The NDK provider interface front end: a Java mirror of NDKPI (objects, calls, flags and NTSTATUS
 * values under their NDK names) whose calls do what a provider does on real hardware against the
 * modeled adapter: WQE bytes into rings in host memory, doorbells, firmware commands, and the
 * connection manager's messages across the link.
 *
 * <p>Start at {@link dev.rdmasim.ndk.NdkAdapter#open}; {@code docs/ndk.md} describes every call, the
 * statuses it returns and what it costs in simulated time.
 */
package dev.rdmasim.ndk;
