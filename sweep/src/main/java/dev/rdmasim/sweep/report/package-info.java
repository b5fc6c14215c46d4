/**
 * Plots and report of a finished sweep: {@link dev.rdmasim.sweep.report.Plots} draws PNG and SVG figures chosen
 * from what was swept, {@link dev.rdmasim.sweep.report.Report} writes {@code report.md} (depth for 95 % of the best
 * throughput, where inline stops paying off, the bottleneck block of every point). Both read only
 * {@link dev.rdmasim.sweep.SweepResults}, and the same results give the same bytes.
 * {@link dev.rdmasim.sweep.report.ValidationPlots} draws, in the same style, the model's curves beside the published
 * measurements for {@code rdmasim validate --out}.
 */
package dev.rdmasim.sweep.report;
