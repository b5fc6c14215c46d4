/**
 * Recording: {@link dev.rdmasim.traces.record.TraceRecorder} hears the NDK calls of a run (through
 * {@link dev.rdmasim.ndk.NdkRecorder}) and writes them as a version-1 trace that replays them at the same
 * simulated times.
 */
package dev.rdmasim.traces.record;
