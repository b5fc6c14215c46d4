package dev.rdmasim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.function.IntFunction;
import java.util.stream.Stream;
import nl.tudelft.simulation.dsol.eventlists.RedBlackTree;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import umontreal.ssj.simevents.eventlist.Henriksen;
import umontreal.ssj.simevents.eventlist.SplayTree;

/** Checks that every benchmarked hold model really is the hold model, and the same one. */
class HoldModelsTest {
    private static final int N = 1024;
    private static final int EVENTS = 100_000;

    static Stream<Arguments> models() {
        return Stream.of(
                Arguments.of("kernel calendar", (IntFunction<HoldModel>) n -> new KernelHoldModel(n, "calendar")),
                Arguments.of("kernel d=2", (IntFunction<HoldModel>) n -> new KernelHoldModel(n, "heap2")),
                Arguments.of("kernel d=4", (IntFunction<HoldModel>) n -> new KernelHoldModel(n, "heap4")),
                Arguments.of("kernel d=8", (IntFunction<HoldModel>) n -> new KernelHoldModel(n, "heap8")),
                Arguments.of("ssj henriksen", (IntFunction<HoldModel>) n -> new SsjHoldModel(new Henriksen(), n)),
                Arguments.of("ssj splay", (IntFunction<HoldModel>) n -> new SsjHoldModel(new SplayTree(), n)),
                Arguments.of("dsol red-black", (IntFunction<HoldModel>) n -> new DsolHoldModel(new RedBlackTree<>(), n)));
    }

    /** Time after {@link #EVENTS} events, fired one at a time, on the kernel (the reference). */
    private static double referenceTime() {
        HoldModel ref = new KernelHoldModel(N, "calendar");
        for (int i = 0; i < EVENTS; i++) {
            ref.run(1);
        }
        return ref.now();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void firesEventsInTimeOrderAtTheirScheduledTimesKeepingNPending(String name, IntFunction<HoldModel> factory) {
        HoldModel m = factory.apply(N);
        assertThat(m.pending()).isEqualTo(N);
        double prev = m.now();
        for (int i = 0; i < EVENTS; i++) {
            double due = m.nextTime();
            m.run(1);
            // The clock moves to exactly the head's time; a stale clock would break this.
            assertThat(m.now()).as("event %d", i).isEqualTo(due).isGreaterThanOrEqualTo(prev);
            assertThat(m.nextTime()).as("event %d", i).isGreaterThanOrEqualTo(m.now());
            prev = m.now();
            if (i % 97 == 0) { // SSJ counts by walking its list, so not every step
                assertThat(m.pending()).as("event %d", i).isEqualTo(N);
            }
        }
        assertThat(m.pending()).isEqualTo(N);
        // Steady state advances mean/N per event; a model whose clock is wrong drifts far from this.
        assertThat(m.now()).isCloseTo(EVENTS * HoldIncrements.MEAN_PS / N, within(0.05 * EVENTS * HoldIncrements.MEAN_PS / N));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void reachesTheSameTimeAsTheKernelWhenRunInBatches(String name, IntFunction<HoldModel> factory) {
        // Integer-valued increments make every implementation's event times identical, not just close.
        HoldModel m = factory.apply(N);
        m.run(EVENTS - 4096);
        m.run(4096);
        assertThat(m.now()).isEqualTo(referenceTime());
        assertThat(m.pending()).isEqualTo(N);
    }

    @Test
    void incrementTableIsExponentialWithTheStatedMean() {
        double sum = 0;
        for (int i = 0; i < HoldIncrements.SIZE; i++) {
            assertThat(HoldIncrements.ps(i)).isPositive();
            assertThat(HoldIncrements.asDouble(i)).isEqualTo((double) HoldIncrements.ps(i));
            sum += HoldIncrements.asDouble(i);
        }
        // Standard error of the mean is mean/sqrt(65536) = 0.4 %.
        assertThat(sum / HoldIncrements.SIZE).isCloseTo(HoldIncrements.MEAN_PS, within(0.02 * HoldIncrements.MEAN_PS));
    }
}
