/** The {@code rdmasim} command line: picocli commands over the simulator's modules. */
package dev.rdmasim.cli;
