/**
 * Design-space sweeps: a sweep expands swept parameter values into {@link dev.rdmasim.sweep.Point points},
 * runs them through a {@link dev.rdmasim.sweep.PointExecutor} (local threads here; other engines in their own
 * modules), and writes results, plots and a report that are identical whatever ran them.
 */
package dev.rdmasim.sweep;
