/**
 * Reproducible random numbers for the simulation: one independent, named {@link java.util.SplittableRandom}
 * stream per consumer, each seeded only from the run seed and its own name, so that adding or removing a
 * consumer never perturbs the numbers any other consumer draws.
 */
package dev.rdmasim.kernel.random;
