package dev.rdmasim.traces.format;

/** How an {@code mr} line fills its buffer: {@code zero}, {@code byte:V} or {@code pattern:SEED}. */
public record Fill(Kind kind, long value) {
    public enum Kind { ZERO, BYTE, PATTERN }

    public static final Fill ZERO = new Fill(Kind.ZERO, 0);
}
