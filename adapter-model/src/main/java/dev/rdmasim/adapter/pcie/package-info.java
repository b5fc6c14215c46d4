/**
 * The PCIe link between the adapter and its host at transaction-layer level: TLPs (MWr, MRd, CplD) serialized with
 * their framing and the data-link layer's Ack, flow-control and SKIP bytes on a link of given generation and width;
 * the root complex that applies writes to host memory and answers reads; and the device's DMA engine with its read
 * tags and client channels. Entry point: {@link dev.rdmasim.adapter.pcie.PcieLink}; see {@code docs/pcie.md}.
 */
package dev.rdmasim.adapter.pcie;
