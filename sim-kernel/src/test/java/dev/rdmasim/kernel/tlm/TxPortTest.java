package dev.rdmasim.kernel.tlm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TxPortTest {

    @Test
    void refusedSenderWaitsForRetryAndSendingEarlyFailsLoudly() {
        Simulator sim = new Simulator();
        List<String> log = new ArrayList<>();
        boolean[] full = {true};
        TxPort<String> tx = new TxPort<>(sim, "a.out", () -> log.add("retry@" + sim.now()));
        RxPort<String> rx = new RxPort<>("b.in", item -> !full[0] && log.add(item));
        RxPort.connect(tx, rx);

        assertThat(tx.trySend("x")).isFalse();
        assertThat(tx.blocked()).isTrue();
        assertThat(rx.senderBlocked()).isTrue();
        assertThatThrownBy(() -> tx.trySend("y")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("waiting for a retry");

        sim.event("drain", () -> {
            full[0] = false;
            rx.sendRetry();
            log.add("drained@" + sim.now());
        }).schedule(50);
        sim.run();
        // The retry arrives in its own event, after the receiver's code has finished.
        assertThat(log).containsExactly("drained@50", "retry@50");
        assertThat(tx.trySend("x")).isTrue();
        assertThat(log).endsWith("x");
        assertThat(tx.sent()).isEqualTo(1);
        assertThat(tx.refused()).isEqualTo(1);
    }

    @Test
    void retryWithoutBlockedSenderDoesNothing() {
        Simulator sim = new Simulator();
        List<String> log = new ArrayList<>();
        TxPort<String> tx = new TxPort<>(sim, "a.out", () -> log.add("retry"));
        RxPort<String> rx = new RxPort<>("b.in", item -> true);
        RxPort.connect(tx, rx);
        rx.sendRetry();
        sim.run();
        assertThat(log).isEmpty();
    }

    @Test
    void unconnectedOrDoublyConnectedPortsAreRejected() {
        Simulator sim = new Simulator();
        TxPort<String> tx = new TxPort<>(sim, "a.out", () -> { });
        assertThatThrownBy(() -> tx.trySend("x")).hasMessageContaining("not connected");
        RxPort<String> rx = new RxPort<>("b.in", item -> true);
        RxPort.connect(tx, rx);
        assertThatThrownBy(() -> RxPort.connect(new TxPort<>(sim, "c.out", () -> { }), rx))
                .hasMessageContaining("already connected");
    }
}
