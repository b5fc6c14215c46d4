/**
 * The discrete-event core: {@link dev.rdmasim.kernel.Simulator} owns simulated time (a {@code long}
 * count of picoseconds) and runs reusable {@link dev.rdmasim.kernel.Event}s in (time, priority,
 * sequence) order from a swappable {@link dev.rdmasim.kernel.EventQueue}. {@link dev.rdmasim.kernel.Partitions}
 * runs a model cut into several simulators that meet only through {@link dev.rdmasim.kernel.Crossing}s with a least
 * latency, on one thread or several with the same result.
 */
package dev.rdmasim.kernel;
