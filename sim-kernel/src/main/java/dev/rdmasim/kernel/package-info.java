/**
 * The discrete-event core: {@link dev.rdmasim.kernel.Simulator} owns simulated time (a {@code long}
 * count of picoseconds) and runs reusable {@link dev.rdmasim.kernel.Event}s in (time, priority,
 * sequence) order from a swappable {@link dev.rdmasim.kernel.EventQueue}.
 */
package dev.rdmasim.kernel;
