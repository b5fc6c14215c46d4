package dev.rdmasim.traces.format;

/** A place in a trace file: 1-based line and column. Prints as {@code file:line:col}. */
public record Position(String file, int line, int column) {
    @Override
    public String toString() {
        return file + ":" + line + ":" + column;
    }
}
