/**
 * The RoCEv2 RDMA adapter model (doorbells, WQE fetch, DMA over PCIe, packetizer, receive path, CQE writer). Built on the kernel in a later step; empty until then.
 */
package dev.rdmasim.adapter;
