package dev.rdmasim.kernel.tlm;

/** What a receiving block does with an item offered on its {@link RxPort}. */
@FunctionalInterface
public interface Acceptor<T> {
    /** Takes the item and returns true, or refuses it and returns false (then it owes the sender a retry). */
    boolean accept(T item);
}
