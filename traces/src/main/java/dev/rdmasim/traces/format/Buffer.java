package dev.rdmasim.traces.format;

/** A local buffer {@code MR+OFFSET:LENGTH}: {@code length} bytes at {@code offset} inside region {@code mr}. */
public record Buffer(String mr, long offset, long length, Position position) {
}
