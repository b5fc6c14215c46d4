/**
 * Design-space sweeps: a {@link dev.rdmasim.sweep.SweepSpec} (from a command line or a
 * {@link dev.rdmasim.sweep.SweepFile YAML file}) expands swept parameter values into
 * {@link dev.rdmasim.sweep.Point points}, checked before any runs; a {@link dev.rdmasim.sweep.PointExecutor} (local
 * threads here, other engines in their own modules, found by name through
 * {@link dev.rdmasim.sweep.PointExecutorProvider}) runs each with {@link dev.rdmasim.sweep.PointRunner}; and
 * {@link dev.rdmasim.sweep.Sweep} persists every result as it arrives, resumes interrupted sweeps, and writes
 * results, plots and a report that are identical whatever ran them (docs/sweep.md).
 */
package dev.rdmasim.sweep;
