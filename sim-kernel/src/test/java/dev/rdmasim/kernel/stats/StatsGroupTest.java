package dev.rdmasim.kernel.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class StatsGroupTest {

    private final FakeTime time = new FakeTime();
    private final StatsGroup group = new StatsGroup("nicA.dma", time);

    @Test
    void counterCountsAndAdds() {
        Counter reads = group.counter("reads", "requests", "DMA read requests issued");

        reads.inc();
        reads.inc();
        reads.add(40);

        assertThat(reads.value()).isEqualTo(42);
        assertThat(reads.name()).isEqualTo("reads");
        assertThat(reads.fullName()).isEqualTo("nicA.dma.reads");
        assertThat(reads.unit()).isEqualTo("requests");
        assertThat(reads.description()).isEqualTo("DMA read requests issued");
    }

    @Test
    void histogramReportsPercentilesOfKnownData() {
        Histogram latency = group.histogram("latency", "ps", "Read latency");
        for (long v = 1000; v >= 1; v--) {
            latency.record(v);
        }

        assertThat(latency.count()).isEqualTo(1000);
        assertThat(latency.min()).isEqualTo(1);
        assertThat(latency.max()).isEqualTo(1000);
        assertThat(latency.mean()).isEqualTo(500.5);
        assertThat(latency.percentile(50)).isEqualTo(500);
        assertThat(latency.percentile(90)).isEqualTo(900);
        assertThat(latency.percentile(99)).isEqualTo(990);
        assertThat(latency.percentile(99.9)).isEqualTo(999);
        assertThat(latency.percentile(100)).isEqualTo(1000);
        assertThat(latency.percentile(0)).isEqualTo(1);
    }

    @Test
    void histogramKeepsThreeSignificantDigitsForLargeValues() {
        Histogram latency = group.histogram("latency", "ps", "Read latency");
        latency.record(123_456_789L);
        latency.record(0);

        assertThat(latency.max()).isCloseTo(123_456_789L, within(123_456L));
        assertThat(latency.min()).isZero();
        assertThat(latency.count()).isEqualTo(2);
    }

    @Test
    void emptyHistogram() {
        Histogram latency = group.histogram("latency", "ps", "Read latency");

        assertThat(latency.count()).isZero();
        assertThat(latency.mean()).isNaN();
        assertThat(latency.min()).isZero();
        assertThat(latency.max()).isZero();
        assertThat(latency.percentile(99)).isZero();
    }

    @Test
    void histogramRejectsNegativeValuesAndBadPercentiles() {
        Histogram latency = group.histogram("latency", "ps", "Read latency");

        assertThatIllegalArgumentException().isThrownBy(() -> latency.record(-1))
                .withMessageContaining("nicA.dma.latency").withMessageContaining("-1");
        assertThatIllegalArgumentException().isThrownBy(() -> latency.percentile(100.5));
        assertThatIllegalArgumentException().isThrownBy(() -> latency.percentile(Double.NaN));
        assertThat(latency.count()).isZero();
    }

    @Test
    void fixedRangeHistogramRejectsValuesAboveItsRange() {
        Histogram sizes = group.histogram("sizes", "bytes", "Request sizes", 4096);
        sizes.record(4096);

        assertThatIllegalArgumentException().isThrownBy(() -> sizes.record(1L << 40))
                .withMessageContaining("nicA.dma.sizes");
        assertThat(sizes.count()).isEqualTo(1);
        assertThatIllegalArgumentException().isThrownBy(() -> group.histogram("tiny", "bytes", "x", 1))
                .withMessage("highestTrackableValue of nicA.dma.tiny must be at least 2, got 1");
        // The rejected declaration must not have taken the name.
        group.histogram("tiny", "bytes", "x", 2);
    }

    @Test
    void formulaIsEvaluatedWhenRead() {
        Counter bytes = group.counter("readBytes", "bytes", "Bytes read");
        Formula bandwidth = group.formula("readBandwidth", "bytes/ps", "Read bandwidth",
                () -> (double) bytes.value() / time.nowPs());

        time.set(100);
        bytes.add(50);
        assertThat(bandwidth.value()).isEqualTo(0.5);

        time.set(200);
        bytes.add(350);
        assertThat(bandwidth.value()).isEqualTo(2.0);
    }

    @Test
    void timeAverageWeighsLevelsByDuration() {
        TimeAverage occupancy = group.timeAverage("occupancy", "entries", "FIFO occupancy");

        time.advance(10);
        occupancy.set(4);
        time.advance(30);

        assertThat(occupancy.average()).isEqualTo(3.0);
        assertThat(occupancy.max()).isEqualTo(4);
        assertThat(occupancy.level()).isEqualTo(4);

        occupancy.set(2);
        occupancy.set(0);
        time.advance(40);

        assertThat(occupancy.average()).isEqualTo(1.5);
        assertThat(occupancy.max()).isEqualTo(4);
    }

    /** Setting an unchanged level, however often, is the same as setting it once: the area is exact. */
    @Test
    void repeatingALevelChangesNothing() {
        TimeAverage once = group.timeAverage("once", "u", "d");
        TimeAverage often = group.timeAverage("often", "u", "d");
        java.util.Random random = new java.util.Random(7);
        long level = 0;
        for (int i = 0; i < 10_000; i++) {
            // Sums beyond 2^53, where a double's running sum would round differently for different splits.
            time.advance(random.nextInt(1 << 24));
            if (random.nextInt(4) == 0) {
                level = random.nextInt(1 << 24);
                once.set(level);
            }
            often.set(level);
            if (random.nextBoolean()) {
                often.setAt(time.nowPs(), level);
            }
        }
        assertThat(often.average()).isEqualTo(once.average()).isPositive();
        assertThat(often.max()).isEqualTo(once.max());
    }

    /** The area is the exact integer sum (here beyond 2^53, where a running double would round). */
    @Test
    void theAverageIsTheExactAreaOverTheSpan() {
        TimeAverage avg = group.timeAverage("exact", "u", "d");
        java.util.Random random = new java.util.Random(11);
        long area = 0;
        long level = 0;
        for (int i = 0; i < 20_000; i++) {
            long span = random.nextInt(1 << 24);
            area += level * span;
            time.advance(span);
            level = random.nextInt(1 << 24);
            avg.set(level);
        }
        assertThat(area).isGreaterThan(1L << 56);
        assertThat(avg.average()).isEqualTo((double) area / time.nowPs());
        assertThat(avg.toString()).isEqualTo("nicA.dma.exact level " + level);
    }

    /** Going back in time is caught even when the level does not change, and when only the average is asked. */
    @Test
    void timeGoingBackwardsIsCaughtWithoutAChangeToo() {
        TimeAverage avg = group.timeAverage("back", "u", "d");
        time.set(50);
        avg.set(3);
        time.set(60);
        assertThatIllegalStateException().isThrownBy(() -> avg.setAt(40, 3)).withMessageContaining("nicA.dma.back");
        time.set(40);
        assertThatIllegalStateException().isThrownBy(avg::average).withMessageContaining("backwards");
    }

    /** Products beyond a long (a huge level held for a long time) and negative levels still average exactly. */
    @Test
    void hugeAndNegativeLevelsAverageCorrectly() {
        TimeAverage huge = group.timeAverage("huge", "u", "d");
        huge.set(1L << 40);
        time.advance(1L << 30); // 2^70 level x ps: beyond a long
        huge.set(0);
        time.advance(1L << 30);
        assertThat(huge.average()).isEqualTo((double) (1L << 39));
        TimeAverage many = group.timeAverage("many", "u", "d");
        many.set((1L << 31) - 1); // each product fits, their sum does not
        for (int i = 0; i < 8; i++) {
            time.advance((1L << 31) - 1);
            many.set(i % 2 == 0 ? (1L << 31) - 2 : (1L << 31) - 1);
        }
        assertThat(many.average()).isCloseTo((1L << 31) - 1.5, within(1.0));
        assertThat(many.average()).isGreaterThan(1 << 30);
        TimeAverage negative = group.timeAverage("negative", "u", "d");
        negative.set(-4);
        time.advance(10);
        negative.set(2);
        time.advance(10);
        assertThat(negative.average()).isEqualTo(-1.0);
    }

    @Test
    void timeAverageStartsAtCreationTime() {
        time.set(1000);
        TimeAverage occupancy = group.timeAverage("occupancy", "entries", "FIFO occupancy");

        assertThat(occupancy.average()).isZero();
        occupancy.set(8);
        assertThat(occupancy.average()).isEqualTo(8.0);
        time.advance(10);
        occupancy.set(2);
        time.advance(30);

        assertThat(occupancy.average()).isEqualTo(3.5);
    }

    @Test
    void timeAverageRejectsTimeGoingBackwards() {
        TimeAverage occupancy = group.timeAverage("occupancy", "entries", "FIFO occupancy");
        time.set(50);
        occupancy.set(1);
        time.set(40);

        assertThatIllegalStateException().isThrownBy(() -> occupancy.set(2))
                .withMessageContaining("nicA.dma.occupancy");
    }

    @Test
    void setAtRecordsChangesThatAreReportedLate() {
        TimeAverage busy = group.timeAverage("busy", "fraction", "Serializer busy");
        TimeAverage live = group.timeAverage("live", "fraction", "The same, set as it happens");
        // Busy over [10, 40) and [40, 40) (a zero-length glitch) and [70, 90); reported only at 100.
        long[][] changes = {{10, 1}, {40, 0}, {40, 1}, {40, 0}, {70, 1}, {90, 0}};
        for (long[] c : changes) {
            time.set(c[0]);
            live.set(c[1]);
        }
        time.set(100);
        for (long[] c : changes) {
            busy.setAt(c[0], c[1]);
        }

        assertThat(busy.average()).isEqualTo(0.5).isEqualTo(live.average());
        assertThat(busy.max()).isEqualTo(1);
        assertThat(busy.level()).isZero();
        busy.setAt(100, 3);
        time.set(110);
        assertThat(busy.average()).isEqualTo((50 + 30) / 110.0);
        assertThat(busy.max()).isEqualTo(3);
    }

    @Test
    void setAtRejectsTheFutureAndGoingBackwards() {
        TimeAverage level = group.timeAverage("level", "u", "d");
        time.set(50);
        level.setAt(20, 1);

        assertThatIllegalArgumentException().isThrownBy(() -> level.setAt(51, 2))
                .withMessageContaining("nicA.dma.level").withMessageContaining("future");
        assertThatIllegalStateException().isThrownBy(() -> level.setAt(19, 2))
                .withMessageContaining("nicA.dma.level");
        group.reset();
        assertThatIllegalStateException().as("before the reset").isThrownBy(() -> level.setAt(49, 2));
        level.setAt(50, 2);
        time.set(60);
        assertThat(level.average()).isEqualTo(2.0);
    }

    @Test
    void refreshRunsBeforeResetSoLateChangesLandOnTheRightSide() {
        TimeAverage level = group.timeAverage("level", "u", "d");
        Counter done = group.counter("done", "u", "d");
        // A lazy block: it knows at 0 that the level is 4 over [10, 30), but reports it only when asked.
        long[] reported = {0};
        Runnable catchUp = () -> {
            long now = time.nowPs();
            if (reported[0] < 10 && now >= 10) {
                level.setAt(10, 4);
                reported[0] = 10;
            }
            if (reported[0] < 30 && now >= 30) {
                level.setAt(30, 0);
                done.inc();
                reported[0] = 30;
            }
        };
        group.setRefresh(catchUp);
        assertThatIllegalStateException().isThrownBy(() -> group.setRefresh(catchUp));

        time.set(20);
        group.reset(); // the block reports [10, 20) before the reset drops it
        assertThat(level.level()).isEqualTo(4);
        time.set(40);
        group.refresh();

        assertThat(level.average()).isEqualTo(4 * 10 / 20.0);
        assertThat(level.max()).isEqualTo(4);
        assertThat(done.value()).isEqualTo(1);
    }

    @Test
    void resetClearsEverythingAndRestartsTimeAverages() {
        Counter reads = group.counter("reads", "requests", "Reads");
        Histogram latency = group.histogram("latency", "ps", "Latency");
        TimeAverage occupancy = group.timeAverage("occupancy", "entries", "Occupancy");
        reads.add(5);
        latency.record(7);
        occupancy.set(10);
        time.advance(100);
        occupancy.set(2);
        time.advance(100);

        group.reset();

        assertThat(reads.value()).isZero();
        assertThat(latency.count()).isZero();
        assertThat(occupancy.max()).isEqualTo(2);
        assertThat(occupancy.level()).isEqualTo(2);
        time.advance(10);
        occupancy.set(6);
        time.advance(30);
        assertThat(occupancy.average()).isEqualTo(5.0);
    }

    @Test
    void statsAreListedInRegistrationOrder() {
        group.timeAverage("z", "u", "d");
        group.counter("a", "u", "d");
        group.formula("m", "u", "d", () -> 1);
        group.histogram("b", "u", "d");

        assertThat(group.stats()).extracting(Stat::name).containsExactly("z", "a", "m", "b");
        assertThat(group.path()).isEqualTo("nicA.dma");
    }

    @Test
    void duplicateNamesAreRejectedWithTheFullName() {
        group.counter("reads", "requests", "Reads");

        assertThatIllegalArgumentException().isThrownBy(() -> group.histogram("reads", "ps", "Other"))
                .withMessageContaining("nicA.dma.reads");
        assertThat(group.stats()).hasSize(1);
    }

    @Test
    void invalidNamesAreRejected() {
        for (String bad : new String[] {"", "1reads", "read.bytes", "read-bytes", "read bytes", "é"}) {
            assertThatIllegalArgumentException().as("name '%s'", bad)
                    .isThrownBy(() -> group.counter(bad, "u", "d"));
        }
        group.counter("_ok_Name9", "u", "d");
    }

    @Test
    void invalidPathsAreRejected() {
        for (String bad : new String[] {"", "nicA.", ".nicA", "nicA..dma", "nic A", "0nic"}) {
            assertThatIllegalArgumentException().as("path '%s'", bad)
                    .isThrownBy(() -> new StatsGroup(bad, time));
        }
        assertThat(new StatsGroup("top", time).path()).isEqualTo("top");
    }

    @Test
    void recordingDoesNotAllocate() {
        Counter counter = group.counter("c", "u", "d");
        Histogram auto = group.histogram("auto", "ps", "d");
        Histogram fixed = group.histogram("fixed", "ps", "d", 1_000_000);
        TimeAverage level = group.timeAverage("level", "u", "d");
        Runnable work = () -> {
            for (int i = 0; i < 100_000; i++) {
                counter.inc();
                counter.add(i);
                auto.record(i * 7L);
                fixed.record(i);
                time.advance(1);
                level.set(i & 15);
            }
        };
        work.run(); // warm up: lets the auto-resizing histogram reach its final size

        long allocated = allocatedBytes(work);

        // A single object per update would be at least 1.6 MB; the slack covers one-off JVM bookkeeping.
        assertThat(allocated).as("bytes allocated by 100k updates").isLessThan(16 * 1024);
    }

    static long allocatedBytes(Runnable work) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        work.run();
        return threads.getCurrentThreadAllocatedBytes() - before;
    }

    /** Each statistic and the group describe themselves by full name and current value, for logs and debuggers. */
    @Test
    void statisticsDescribeThemselves() {
        Counter c = group.counter("reads", "ops", "d");
        c.add(5);
        Formula f = group.formula("ratio", "x", "d", () -> 2.5);
        Histogram h = group.histogram("lat", "ps", "d");
        h.record(3);
        h.record(4);
        TimeAverage t = group.timeAverage("level", "items", "d");
        t.set(7);

        assertThat(c).hasToString("nicA.dma.reads = 5");
        assertThat(f).hasToString("nicA.dma.ratio = 2.5");
        assertThat(h).hasToString("nicA.dma.lat (count 2)");
        assertThat(t).hasToString("nicA.dma.level level 7");
        assertThat(group).hasToString("StatsGroup[nicA.dma, 4 stats]");
    }
}
