/**
 * The adapter's core, one class per hardware block: {@link dev.rdmasim.adapter.nic.Adapter} builds them in
 * pipeline order and decodes the BAR; the doorbell unit, context memory and QP-context cache, WQE fetch engine,
 * WQE cache and inline credits, WQE parser, requester transport and send scheduler, transmitter (packetizer), key
 * unit, receiver (frame checks and responder), payload writer, CQE writer, event queue and MSI-X unit, firmware
 * object tables and command unit, and QP1 (GSI). Blocks hand work forward and pass credits and ready signals back
 * by name; {@code docs/model.md} has the diagram and the walk of one WRITE, class by class.
 */
package dev.rdmasim.adapter.nic;
