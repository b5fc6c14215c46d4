/**
 * Waveform tracing: a {@link dev.rdmasim.kernel.wave.VcdWriter} records how chosen signals of the simulated
 * hardware change over simulated time, as an IEEE 1364 value change dump that GTKWave can display. A
 * {@link dev.rdmasim.kernel.wave.SignalFilter} selects which signals are traced; the others cost almost nothing.
 */
package dev.rdmasim.kernel.wave;
