/**
 * JMH benchmarks. The {@code *Hold} benchmarks run the classic hold model (N pending events, each
 * rescheduling itself at an exponential increment) on our kernel and on the SSJ and DSOL event
 * lists, all fed from one shared table of increments so they simulate the same trajectory.
 */
package dev.rdmasim.bench;
