package dev.rdmasim.kernel.tlm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The two ends of a link: names, connection state, refusals and retries at their edges. */
class TlmPortsTest {

    private final Simulator sim = new Simulator();
    private final List<String> log = new ArrayList<>();

    @Test
    void portsKnowTheirNamesAndWhetherTheyAreConnected() {
        TxPort<String> tx = new TxPort<>(sim, "a.out", () -> { });
        RxPort<String> rx = new RxPort<>("b.in", item -> true);
        assertThat(tx.name()).isEqualTo("a.out");
        assertThat(rx.name()).isEqualTo("b.in");
        assertThat(tx.connected()).isFalse();
        assertThat(rx.connected()).isFalse();

        RxPort.connect(tx, rx);

        assertThat(tx.connected()).isTrue();
        assertThat(rx.connected()).isTrue();
        assertThat(tx.blocked()).isFalse();
        assertThat(rx.senderBlocked()).isFalse();
        assertThat(tx.trySend("x")).isTrue();
        assertThat(tx.sent()).isEqualTo(1);
        assertThat(tx.refused()).isZero();
    }

    @Test
    void nullNamesAndCallbacksAreRefused() {
        assertThatNullPointerException().isThrownBy(() -> new TxPort<String>(sim, null, () -> { }));
        assertThatNullPointerException().isThrownBy(() -> new TxPort<String>(sim, "a.out", null));
        assertThatNullPointerException().isThrownBy(() -> new RxPort<String>(null, item -> true));
        assertThatNullPointerException().isThrownBy(() -> new RxPort<String>("b.in", null));
    }

    /** A second connection of either end is refused with both names, and leaves the other port unconnected. */
    @Test
    void eachEndConnectsOnce() {
        TxPort<String> tx = new TxPort<>(sim, "a.out", () -> { });
        RxPort<String> rx = new RxPort<>("b.in", item -> true);
        RxPort.connect(tx, rx);

        RxPort<String> otherRx = new RxPort<>("c.in", item -> true);
        assertThatIllegalStateException().isThrownBy(() -> RxPort.connect(tx, otherRx))
                .withMessage("port 'a.out' is already connected to 'b.in'");
        assertThat(otherRx.connected()).isFalse();

        TxPort<String> otherTx = new TxPort<>(sim, "d.out", () -> { });
        assertThatIllegalStateException().isThrownBy(() -> RxPort.connect(otherTx, rx))
                .withMessage("port 'b.in' is already connected to 'a.out'");
        assertThat(otherTx.connected()).isFalse();
    }

    @Test
    void anUnconnectedReceiverHasNoSenderToRetry() {
        RxPort<String> rx = new RxPort<>("b.in", item -> false);
        rx.sendRetry();
        assertThat(rx.senderBlocked()).isFalse();
        sim.run();
        assertThat(sim.eventsExecuted()).isZero();
    }

    @Test
    void sendingUnconnectedOrWhileBlockedNamesThePorts() {
        TxPort<String> tx = new TxPort<>(sim, "a.out", () -> { });
        assertThatIllegalStateException().isThrownBy(() -> tx.trySend("x"))
                .withMessage("port 'a.out' is not connected");
        RxPort.connect(tx, new RxPort<>("b.in", item -> false));
        assertThat(tx.trySend("x")).isFalse();
        assertThatIllegalStateException().isThrownBy(() -> tx.trySend("x"))
                .withMessage("port 'a.out' sent while waiting for a retry from 'b.in'");
        assertThat(tx.refused()).isEqualTo(1);
        assertThat(tx.sent()).isZero();
    }

    /**
     * A sender refused again before its retry event ran: the second retry finds the event pending and does not
     * schedule it twice, so the sender hears once, and may send then.
     */
    @Test
    void aSecondRetryBeforeTheFirstArrivesIsDeliveredOnce() {
        boolean[] full = {true};
        TxPort<String> tx = new TxPort<>(sim, "a.out", () -> log.add("retry@" + sim.now()));
        RxPort<String> rx = new RxPort<>("b.in", item -> !full[0] && log.add(item));
        RxPort.connect(tx, rx);
        assertThat(tx.trySend("x")).isFalse();

        sim.event("drainTwice", () -> {
            rx.sendRetry();
            assertThat(tx.blocked()).isFalse();
            assertThat(tx.trySend("x")).isFalse(); // still full: refused again before hearing the retry
            rx.sendRetry();
            full[0] = false;
        }).schedule(10);
        sim.run();

        assertThat(log).containsExactly("retry@10");
        assertThat(tx.blocked()).isFalse();
        assertThat(tx.refused()).isEqualTo(2);
        assertThat(tx.trySend("x")).isTrue();
    }

    /** The receiver decides per item; every refusal blocks until its retry, every acceptance is counted. */
    @Test
    void countsFollowTheReceiversAnswers() {
        int[] seen = {0};
        TxPort<Integer> tx = new TxPort<>(sim, "a.out", () -> { });
        RxPort<Integer> rx = new RxPort<>("b.in", item -> seen[0]++ % 3 != 2);
        RxPort.connect(tx, rx);
        for (int i = 0; i < 9; i++) {
            if (!tx.trySend(i)) {
                assertThat(rx.senderBlocked()).isTrue();
                rx.sendRetry();
                assertThat(rx.senderBlocked()).isFalse();
            }
        }
        assertThat(tx.sent()).isEqualTo(6);
        assertThat(tx.refused()).isEqualTo(3);
    }
}
