package dev.rdmasim.kernel.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TimeAverage#syncAt}: a queue's average kept by Little's law (each item's wait summed, folded in at refresh
 * points) against the same queue reported level change by level change, over seeded random arrivals, services,
 * refreshes and resets.
 */
class TimeAverageSyncTest {

    private final FakeTime time = new FakeTime();
    private final StatsGroup group = new StatsGroup("link", time);

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 17, 99, 1234, 987654321})
    void littlesLawMatchesALevelChangeAtEachInstant(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        TimeAverage reference = group.timeAverage("reference", "items", "changes reported as they happen");
        TimeAverage synced = group.timeAverage("synced", "items", "waits folded in at refreshes");
        ArrayDeque<Long> queue = new ArrayDeque<>(); // entry times, oldest first
        long waits = 0;
        long credit = 0;
        long peak = 0;
        int refreshes = 0;
        for (int step = 0; step < 20_000; step++) {
            time.advance(rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextLong(5_000));
            long now = time.nowPs();
            int what = rnd.nextInt(10);
            if (what < 4) {
                queue.addLast(now);
                reference.set(queue.size());
                peak = Math.max(peak, queue.size());
            } else if (what < 8 && !queue.isEmpty()) {
                waits += now - queue.removeFirst();
                reference.set(queue.size());
            } else {
                // A refresh: fold the waits in, then compare; now and then a reset after it.
                long partial = 0;
                for (long entered : queue) {
                    partial += now - entered;
                }
                synced.syncAt(now, waits - credit + partial, queue.size(), peak);
                waits = 0;
                credit = partial;
                peak = queue.size();
                refreshes++;
                assertThat(synced.average()).as("average at %d ps", now).isEqualTo(reference.average());
                assertThat(synced.max()).as("max at %d ps", now).isEqualTo(reference.max());
                assertThat(synced.level()).isEqualTo(reference.level());
                if (rnd.nextInt(5) == 0) {
                    group.reset();
                }
            }
        }
        assertThat(refreshes).isGreaterThan(1_000);
        assertThat(reference.max()).isGreaterThan(3);
    }

    @Test
    void aSyncMayComeAfterTheFactButNotFromTheFutureNorBeforeTheLastChange() {
        TimeAverage avg = group.timeAverage("q", "items", "d");
        time.set(1_000);
        avg.syncAt(400, 800, 1, 2); // level 2 over 400 ps, then 1 from 400 ps on
        time.set(1_400);
        assertThat(avg.average()).isEqualTo((800 + 1_000) / 1_400.0);
        assertThat(avg.max()).isEqualTo(2);
        assertThatIllegalArgumentException().isThrownBy(() -> avg.syncAt(1_500, 0, 1, 1))
                .withMessageContaining("link.q").withMessageContaining("future");
        assertThatIllegalArgumentException().isThrownBy(() -> avg.syncAt(1_400, -1, 1, 1))
                .withMessageContaining("negative area");
        assertThatIllegalStateException().isThrownBy(() -> avg.syncAt(300, 0, 1, 1))
                .withMessageContaining("went backwards");
    }

    @Test
    void areasThatFitALongAddUpExactly() {
        // 2^53 + 1 and 1 added in a long give 2^53 + 2, which a double holds; added as doubles they round to 2^53.
        TimeAverage avg = group.timeAverage("exact", "items", "d");
        time.set(1);
        avg.syncAt(1, (1L << 53) + 1, 0, 0);
        avg.syncAt(1, 1, 0, 0);
        assertThat(avg.average()).isEqualTo((double) ((1L << 53) + 2));
    }

    @Test
    void anAreaBeyondALongGoesOnInTheDouble() {
        TimeAverage avg = group.timeAverage("huge", "items", "d");
        time.set(10);
        avg.syncAt(10, Long.MAX_VALUE - 5, 0, 0);
        avg.syncAt(10, Long.MAX_VALUE - 5, 0, 0);
        assertThat(avg.average()).isEqualTo(2.0 * (Long.MAX_VALUE - 5) / 10, within(1e3));
    }
}
