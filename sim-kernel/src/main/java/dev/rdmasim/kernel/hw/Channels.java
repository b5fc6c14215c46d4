package dev.rdmasim.kernel.hw;

/** Wiring of ready/valid ports. A producer end can only be connected to a consumer end. */
public final class Channels {
    private Channels() {
    }

    /**
     * Connects a producer to a consumer in the same clock domain. Crossing domains needs an
     * {@link AsyncFifo}, as it does in hardware.
     */
    public static <T> void connect(OutPort<T> producer, InPort<T> consumer) {
        ClockDomain a = producer.owner().clock();
        ClockDomain b = consumer.owner().clock();
        if (a != b) {
            throw new IllegalArgumentException("cannot connect '" + producer.fullName() + "' (clock " + a.name()
                    + ") to '" + consumer.fullName() + "' (clock " + b.name() + "): use an AsyncFifo to cross clock domains");
        }
        if (producer.connected()) {
            throw new IllegalStateException("port '" + producer.fullName() + "' is already connected");
        }
        if (consumer.connected()) {
            throw new IllegalStateException("port '" + consumer.fullName() + "' is already connected");
        }
        producer.connect(consumer);
        consumer.connect(producer);
    }
}
