/**
 * The {@code rdmasim} command line: picocli commands over the simulator's modules. Two short cuts keep short
 * commands from building picocli's model of a command, each checked against picocli's own answer: help texts
 * rendered once per build of the jar ({@link dev.rdmasim.cli.HelpTexts}) and plain {@code perf} lines read by
 * {@link dev.rdmasim.cli.PerfCommandLine}.
 */
package dev.rdmasim.cli;
