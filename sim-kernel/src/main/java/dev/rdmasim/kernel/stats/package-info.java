/**
 * Per-block simulation statistics in the gem5 style: each block owns a {@link dev.rdmasim.kernel.stats.StatsGroup}
 * of named counters, histograms, formulas and time averages, each with a unit and a one-line description, and a
 * {@link dev.rdmasim.kernel.stats.StatsRegistry} dumps all groups as deterministic JSON or as a text table.
 */
package dev.rdmasim.kernel.stats;
