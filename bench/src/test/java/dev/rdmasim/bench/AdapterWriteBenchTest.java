package dev.rdmasim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The benchmark's invocation really completes its operations, in increasing simulated time. */
class AdapterWriteBenchTest {
    @Test
    void eachInvocationCompletesAboutOpsWrites() {
        for (int batch : new int[] {1, 16}) {
            AdapterWriteBench b = new AdapterWriteBench();
            b.batch = batch;
            b.signalEvery = batch;
            b.setUp();
            long t = 0;
            for (int i = 1; i <= 5; i++) {
                long now = b.write();
                assertThat(now).isGreaterThan(t);
                t = now;
                // The poller drains every CQE that has landed, so the count may overshoot the target by
                // up to the WRITEs outstanding; the next invocation's target absorbs the overshoot.
                assertThat(b.completed()).isBetween((long) i * AdapterWriteBench.OPS,
                        (long) i * AdapterWriteBench.OPS + AdapterWriteBench.DEPTH);
            }
            // 5 x 1024 WRITEs of 64 B cannot complete faster than the 100 Gb/s line allows.
            assertThat(t).isGreaterThan(5L * AdapterWriteBench.OPS * 64 * 80);
        }
    }
}
