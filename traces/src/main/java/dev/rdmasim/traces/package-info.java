/**
 * The trace file format: parsing, streaming replay and recording of NDK call traces, the topology a replay builds,
 * and the example traces shipped in the jar ({@link dev.rdmasim.traces.Examples}).
 */
package dev.rdmasim.traces;
