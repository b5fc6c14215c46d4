/**
 * A runnable demonstration of the kernel: two clock domains, queues, a clock-domain crossing, a
 * delay line, random stalls, a waveform and statistics. {@code ./rdmasim demo kernel} runs it.
 */
package dev.rdmasim.kernel.demo;
