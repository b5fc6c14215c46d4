/**
 * The adapter's Ethernet port: a RoCEv2 frame codec over byte arrays ({@link dev.rdmasim.adapter.wire.RoceWriter},
 * {@link dev.rdmasim.adapter.wire.RoceReader}, {@link dev.rdmasim.adapter.wire.Icrc}), the RC opcode table
 * ({@link dev.rdmasim.adapter.wire.Opcode}, {@link dev.rdmasim.adapter.wire.Aeth}), a full-duplex serial link
 * with pooled frame buffers, fault injection and lossless backpressure (a stall, or priority flow control with
 * {@link dev.rdmasim.adapter.wire.PauseFrame}s), whose two ends may run in two partitions of one model
 * ({@link dev.rdmasim.adapter.wire.EthernetLink}), and a pcap writer fed by the link's frame tap
 * ({@link dev.rdmasim.adapter.wire.PcapWriter}). Layouts and timing rules are described in {@code docs/wire.md}.
 */
package dev.rdmasim.adapter.wire;
