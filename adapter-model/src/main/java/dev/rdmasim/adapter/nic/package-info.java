/**
 * The adapter's core, one class per hardware block: {@link dev.rdmasim.adapter.nic.Adapter} builds them in
 * pipeline order and decodes the BAR; the doorbell unit, context memory and QP-context cache, WQE fetch engine,
 * WQE cache and inline credits, WQE parser, requester transport and send scheduler, transmitter (packetizer), key
 * unit, receiver (frame intake), responder, receive-WQE prefetcher, payload writer, CQE writer, event queue and
 * MSI-X unit, firmware object tables and command unit, and QP1 (GSI). Blocks hand work forward and pass credits
 * and ready signals back by name. A QP's state is split by owner: each part is a nested class of the one block
 * that writes it, held by {@link dev.rdmasim.adapter.nic.Qp}. {@code docs/model.md} has the diagram, the table of
 * per-QP state and the walk of one WRITE, class by class.
 */
package dev.rdmasim.adapter.nic;
