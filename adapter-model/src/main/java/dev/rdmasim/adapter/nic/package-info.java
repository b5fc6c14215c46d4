/**
 * The adapter itself: the top-level {@link dev.rdmasim.adapter.nic.Adapter} with its doorbell unit
 * and WQE fetch engine, the key unit, the transmitter (packetizer and requester transport), the
 * receiver (responder checks and data placement), the CQE writer and the firmware command unit
 * ({@code docs/commands.md}), built on the PCIe, wire, format, cache and transport packages. See {@code docs/model.md} for the path of a request.
 */
package dev.rdmasim.adapter.nic;
