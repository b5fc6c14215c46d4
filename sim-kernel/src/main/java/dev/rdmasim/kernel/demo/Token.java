package dev.rdmasim.kernel.demo;

/** An item moving through the demo pipeline, stamped with the time it was created. */
public record Token(long id, long createdPs) {
}
