/**
 * Transaction-level seams: point-to-point links over which whole items (TLPs, packets, DMA
 * requests) move in one call, with visible backpressure through a refused send and a later retry.
 * There is no hidden queue: a receiver that cannot take an item refuses it.
 */
package dev.rdmasim.kernel.tlm;
