/**
 * The host-side driver: what an mlx5-like kernel/user driver does against the adapter model, using
 * only host-memory bytes, MMIO writes through the root complex and the adapter's firmware commands
 * ({@link dev.rdmasim.driver.CommandQueue}, asynchronous, in simulated time; the synchronous
 * create methods apply the same effects at once as the time-zero setup path).
 *
 * <p>{@link dev.rdmasim.driver.Host} assembles one host: it builds the host memory and the adapter
 * and gives the driver the memory and the adapter's control port
 * ({@link dev.rdmasim.adapter.nic.AdapterControl}); the driver never builds the adapter, and register
 * offsets come from {@code dev.rdmasim.adapter.format}.
 * {@link dev.rdmasim.driver.HostDriver} runs on the host CPU and creates
 * the event queue, completion queues, queue pairs and memory regions. {@link dev.rdmasim.driver.SendQueue}
 * builds send WQEs into the ring and rings the doorbell (8-byte MMIO, BlueFlame, or one doorbell for
 * a deferred batch); {@link dev.rdmasim.driver.ReceiveQueue} posts receive WQEs through the
 * doorbell record only; {@link dev.rdmasim.driver.CompletionQueue} polls CQEs by owner bit,
 * retires send and receive WQEs, and arms for events. Each host core
 * ({@link dev.rdmasim.driver.HostCpu}, {@code host.cores} of them, one per QP's posting thread)
 * serializes the work given to it in simulated time, so WQE builds and MMIO stores cost host time
 * and a full posted-write queue of the shared root complex stalls the core whose store it refused.
 */
package dev.rdmasim.driver;
