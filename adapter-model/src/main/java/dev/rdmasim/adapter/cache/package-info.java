/**
 * On-chip caches of adapter context held in host memory: set-associative, LRU, with lines that
 * are filled by DMA reads, so a miss costs a PCIe round trip and stalls the request that needed it.
 */
package dev.rdmasim.adapter.cache;
