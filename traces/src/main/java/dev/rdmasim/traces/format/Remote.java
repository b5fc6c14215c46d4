package dev.rdmasim.traces.format;

/** A peer's region and an offset into it, {@code MR+OFFSET}: the address and token a WRITE or READ targets. */
public record Remote(String mr, long offset, Position position) {
}
