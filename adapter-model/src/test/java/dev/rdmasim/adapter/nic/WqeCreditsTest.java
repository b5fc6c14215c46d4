package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.InvariantViolation;
import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The WQE cache and inline buffer credits alone: a seeded mix of reservations and releases by stand-ins for the
 * fetch engine and the parser, checked against a simple count. Credits are conserved (free == capacity - held
 * after every step, and full again once everything held is given back), every release wakes the upstream waiter
 * exactly once, taking more than is free or giving back more than was taken fails loudly.
 */
class WqeCreditsTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void creditsAreConservedAndEveryReleaseWakesTheWaiter(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        BlockHarness h = new BlockHarness(seed);
        int bbs = 1 + rnd.nextInt(64);
        long inline = 64 + rnd.nextInt(4096);
        WqeCredits c = new WqeCredits(h.top, new WqeCredits.Params(bbs, inline));
        int[] cacheWakes = {0};
        int[] inlineWakes = {0};
        c.onWqeCacheFreed(() -> cacheWakes[0]++);
        c.onInlineFreed(() -> inlineWakes[0]++);
        ArrayDeque<Integer> heldBbs = new ArrayDeque<>();
        ArrayDeque<Long> heldInline = new ArrayDeque<>();
        int held = 0;
        long heldBytes = 0;
        int reserved = 0;
        int released = 0;
        long taken = 0;
        long given = 0;
        int bbReleases = 0;
        int inlineReleases = 0;
        for (int step = 0; step < 2000; step++) {
            switch (rnd.nextInt(4)) {
                case 0 -> {
                    int n = 1 + rnd.nextInt(4);
                    if (n <= c.wqeCacheFree()) {
                        c.reserveWqeCache(n);
                        heldBbs.add(n);
                        held += n;
                        reserved += n;
                    } else {
                        assertThat(held + n).as("refused only when it would not fit").isGreaterThan(bbs);
                    }
                }
                case 1 -> {
                    if (!heldBbs.isEmpty()) {
                        int n = heldBbs.poll();
                        c.releaseWqeCache(n);
                        held -= n;
                        released += n;
                        bbReleases++;
                    }
                }
                case 2 -> {
                    long n = rnd.nextInt(300);
                    boolean fits = c.inlineFits(n);
                    assertThat(fits).as("fits exactly when free").isEqualTo(heldBytes + n <= inline);
                    if (fits) {
                        c.takeInline(n);
                        heldInline.add(n);
                        heldBytes += n;
                        taken += n;
                    }
                }
                default -> {
                    if (!heldInline.isEmpty()) {
                        long n = heldInline.poll();
                        c.releaseInline(n);
                        heldBytes -= n;
                        given += n;
                        inlineReleases++;
                    }
                }
            }
            assertThat(c.wqeCacheFree()).isEqualTo(bbs - held);
            assertThat(c.inlineFree()).isEqualTo(inline - heldBytes);
        }
        while (!heldBbs.isEmpty()) {
            int n = heldBbs.poll();
            c.releaseWqeCache(n);
            released += n;
            bbReleases++;
        }
        while (!heldInline.isEmpty()) {
            long n = heldInline.poll();
            c.releaseInline(n);
            given += n;
            inlineReleases++;
        }
        assertThat(released).as("WQE cache blocks released == reserved").isEqualTo(reserved);
        assertThat(given).as("inline bytes released == taken").isEqualTo(taken);
        assertThat(c.wqeCacheFree()).isEqualTo(bbs);
        assertThat(c.inlineFree()).isEqualTo(inline);
        assertThat(cacheWakes[0]).as("each release of blocks wakes the fetch engine").isEqualTo(bbReleases);
        assertThat(inlineWakes[0]).as("each release of inline bytes wakes the parser").isEqualTo(inlineReleases);
        assertThat(reserved).isPositive();
        assertThat(taken).isPositive();
    }

    @Test
    void overdrawingOrOverReturningFailsLoudly() {
        BlockHarness h = new BlockHarness(1);
        WqeCredits c = new WqeCredits(h.top, new WqeCredits.Params(4, 100));
        c.reserveWqeCache(3);
        assertThatThrownBy(() -> c.reserveWqeCache(2)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("2 WQE cache blocks reserved with 1 free");
        c.releaseWqeCache(3);
        assertThatThrownBy(() -> c.releaseWqeCache(1)).isInstanceOf(InvariantViolation.class);
        c.takeInline(100);
        assertThat(c.inlineFits(1)).isFalse();
        assertThat(c.inlineFits(0)).isTrue();
        assertThatThrownBy(() -> c.takeInline(1)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("1 inline bytes taken with 0 free");
        c.releaseInline(100);
        assertThatThrownBy(() -> c.releaseInline(1)).isInstanceOf(InvariantViolation.class);
    }

    /** A waiter set later replaces the earlier one: the fetch engine and parser each install theirs once. */
    @Test
    void releaseWakesOnlyTheCurrentWaiter() {
        BlockHarness h = new BlockHarness(1);
        WqeCredits c = new WqeCredits(h.top, new WqeCredits.Params(4, 100));
        StringBuilder log = new StringBuilder();
        c.onWqeCacheFreed(() -> log.append("old "));
        c.onWqeCacheFreed(() -> log.append("fetch "));
        c.onInlineFreed(() -> log.append("parse "));
        c.reserveWqeCache(1);
        c.takeInline(10);
        c.releaseInline(10);
        c.releaseWqeCache(1);
        assertThat(log).hasToString("parse fetch ");
    }
}
