/**
 * Byte layouts shared by the NDK front end (driver side: writes WQEs and doorbells, polls CQEs and
 * EQEs) and the adapter model (fetches and parses WQEs, writes CQEs and EQEs, caches contexts).
 * mlx5-like and big-endian; see {@code docs/formats.md} for every layout as a byte-offset table.
 *
 * <p>Everything is static encode/decode over {@code (byte[] buf, int off)} plus small reusable
 * flyweights ({@link dev.rdmasim.adapter.format.SendWqeBuilder},
 * {@link dev.rdmasim.adapter.format.SendWqeParser}, {@link dev.rdmasim.adapter.format.RecvWqe.Parser},
 * {@link dev.rdmasim.adapter.format.OwnedRingPoller}); nothing on the per-WQE path allocates. Malformed
 * guest data is reported as a completion syndrome, never thrown.
 */
package dev.rdmasim.adapter.format;
