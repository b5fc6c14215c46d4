/**
 * The host side of the simulated machine that is not PCIe: {@link dev.rdmasim.adapter.host.HostMemory}, a sparse
 * byte-addressable physical address space that DMA reads and writes, drivers fill with work requests and tests
 * inspect, with a bump allocator for carving buffers.
 */
package dev.rdmasim.adapter.host;
