/**
 * The trace format of docs/trace-format.md: {@link dev.rdmasim.traces.format.TraceReader} streams a
 * trace's declarations and calls as {@link dev.rdmasim.traces.format.TraceLine}s (repeats expanded
 * lazily, syntax checked as it reads, times as {@link dev.rdmasim.traces.format.TimeSpec}s), and
 * {@link dev.rdmasim.traces.format.TraceChecker} is the first pass that checks a whole trace against
 * its hosts' profiles before anything is simulated. Errors are
 * {@link dev.rdmasim.traces.format.TraceError}s, {@code file:line:col: message}.
 */
package dev.rdmasim.traces.format;
