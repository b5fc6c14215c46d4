package dev.rdmasim.kernel.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class BoundTest {

    private final FakeTime time = new FakeTime();
    private final StatsGroup group = new StatsGroup("nicA.dma", time);

    private Counter counter(String name) {
        return (Counter) group.stats().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    private Formula formula(String name) {
        return (Formula) group.stats().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void registersACounterAndAFractionNamedByPrefix() {
        Bound tags = group.bound("readTags", "PCIe read tags", "all tags in use", "pcie.readTags");
        Bound plain = group.bound("", "transmit slots", "every slot holds a packet", "nic.txSlots");

        assertThat(group.stats()).extracting(Stat::name)
                .containsExactly("readTagsFullTime", "readTagsFullFraction", "fullTime", "fullFraction");
        assertThat(counter("readTagsFullTime").unit()).isEqualTo("ps");
        assertThat(counter("readTagsFullTime").description()).contains("PCIe read tags", "pcie.readTags");
        assertThat(formula("fullFraction").description()).contains("transmit slots", "nic.txSlots");
        assertThat(group.bounds()).containsExactly(tags, plain);
        assertThat(tags.what()).isEqualTo("PCIe read tags");
        assertThat(tags.parameter()).isEqualTo("pcie.readTags");
        assertThat(tags.fractionName()).isEqualTo("readTagsFullFraction");
        assertThat(plain.fractionName()).isEqualTo("fullFraction");
    }

    @Test
    void countsTheTimeBetweenTransitionsExactly() {
        Bound b = group.bound("", "transmit slots", "every slot holds a packet", "nic.txSlots");
        time.set(1_000);
        b.set(true);
        time.set(1_500);
        b.set(true); // a repeat changes nothing
        time.set(4_000);
        b.set(false);
        time.set(7_000);
        b.set(true);
        time.set(10_000);

        // 3000 ps closed, 3000 ps open and still running.
        assertThat(counter("fullTime").value()).isEqualTo(3_000);
        assertThat(b.fullTimePs()).isEqualTo(6_000);
        assertThat(formula("fullFraction").value()).isEqualTo(0.6);
        group.refresh();
        assertThat(counter("fullTime").value()).isEqualTo(6_000);
        time.set(12_000);
        b.set(false);
        assertThat(counter("fullTime").value()).isEqualTo(8_000);
        assertThat(b.fullTimePs()).isEqualTo(8_000);
    }

    /** Users that keep their own flag: only a change of a flag enters or leaves, and the new flag is returned. */
    @Test
    void followEntersAndLeavesOnlyOnAChangeOfAUsersFlag() {
        Bound b = group.bound("window", "PSN window", "a QP's window is full", "transport.maxUnackedPsns");
        boolean first = false;
        boolean second = false;
        time.set(100);
        first = b.follow(first, true);
        time.set(200);
        second = b.follow(second, true);
        first = b.follow(first, true); // a repeat changes nothing
        time.set(300);
        first = b.follow(first, false);
        first = b.follow(first, false);
        time.set(400);
        second = b.follow(second, false);
        time.set(1_000);

        assertThat(first).isFalse();
        assertThat(second).isFalse();
        assertThat(b.full()).isFalse();
        assertThat(counter("windowFullTime").value()).isEqualTo(300);
    }

    @Test
    void sharedBoundIsFullWhileAnyUserIsAtTheLimit() {
        Bound b = group.bound("window", "PSN window", "a QP's window is full", "transport.maxUnackedPsns");
        time.set(100);
        b.enter();
        time.set(200);
        b.enter();
        time.set(300);
        b.leave();
        time.set(400);
        b.leave();
        time.set(1_000);

        assertThat(b.full()).isFalse();
        assertThat(b.fullTimePs()).isEqualTo(300);
        assertThatIllegalStateException().isThrownBy(b::leave).withMessageContaining("nicA.dma.windowFullTime");
    }

    @Test
    void resetRestartsTheCountAtTheCurrentTime() {
        Bound b = group.bound("", "queue", "queue full", "nic.dmaReadQueue");
        time.set(100);
        b.set(true);
        time.set(500);
        group.reset();
        assertThat(b.fullTimePs()).isZero();
        time.set(800);
        b.set(false);
        assertThat(counter("fullTime").value()).isEqualTo(300);
    }

    @Test
    void fractionIsZeroAtTimeZero() {
        Bound b = group.bound("", "queue", "queue full", "nic.dmaReadQueue");
        b.set(true);
        assertThat(b.fullFraction()).isZero();
    }

    /** Random transitions against a step-by-step sum of the time spent full. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 2026})
    void matchesAReferenceSum(long seed) {
        Random random = new Random(seed);
        Bound b = group.bound("", "queue", "queue full", "nic.dmaReadQueue");
        int users = 0;
        long expected = 0;
        for (int i = 0; i < 2_000; i++) {
            long step = random.nextInt(1_000);
            if (users > 0) {
                expected += step;
            }
            time.advance(step);
            if (users > 0 && random.nextBoolean()) {
                b.leave();
                users--;
            } else {
                b.enter();
                users++;
            }
            if (random.nextInt(10) == 0) {
                group.refresh();
                assertThat(counter("fullTime").value()).isEqualTo(expected);
            }
            assertThat(b.fullTimePs()).isEqualTo(expected);
        }
    }

    @Test
    void fullWhileAnyUserIsAtTheLimitAndSaysSo() {
        Bound b = group.bound("", "queue", "queue full", "nic.dmaReadQueue");
        assertThat(b.full()).isFalse();
        assertThat(b).hasToString("nicA.dma.fullTime not full");
        b.set(true);
        assertThat(b.full()).isTrue();
        assertThat(b).hasToString("nicA.dma.fullTime full");
        b.enter();
        b.leave();
        assertThat(b.full()).isTrue();
        b.set(false);
        assertThat(b.full()).isFalse();
        assertThat(b).hasToString("nicA.dma.fullTime not full");
    }

    /** Changes reported after the fact count from the instants they happened, not from when they are reported. */
    @Test
    void setAtCountsFromTheInstantsGiven() {
        Bound b = group.bound("", "queue", "queue full", "nic.dmaReadQueue");
        time.set(1_000);
        b.setAt(200, true);
        assertThat(b.full()).isTrue();
        assertThat(b.fullTimePs()).isEqualTo(800);
        time.set(2_000);
        b.setAt(1_500, true); // already full: the stretch still began at 200
        b.setAt(1_700, false);
        assertThat(b.full()).isFalse();
        assertThat(counter("fullTime").value()).isEqualTo(1_500);
        b.setAt(1_800, false); // a repeat changes nothing
        assertThat(counter("fullTime").value()).isEqualTo(1_500);

        // Left at the very instant it was reached: a stretch of no time.
        b.setAt(1_900, true);
        b.setAt(1_900, false);
        assertThat(counter("fullTime").value()).isEqualTo(1_500);
        assertThat(b.fullTimePs()).isEqualTo(1_500);
    }

    @Test
    void setAtRefusesToLeaveBeforeTheStretchBegan() {
        Bound b = group.bound("", "queue", "queue full", "nic.dmaReadQueue");
        time.set(1_000);
        b.setAt(600, true);
        assertThatIllegalStateException().isThrownBy(() -> b.setAt(599, false))
                .withMessage("nicA.dma.fullTime: limit left at 599 ps, before it was reached at 600 ps");
        assertThat(b.full()).isTrue();
        assertThat(counter("fullTime").value()).isZero();
    }
}
