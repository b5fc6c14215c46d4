package dev.rdmasim.traces.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.driver.CompletionQueue;
import dev.rdmasim.driver.HostPair;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.StatsGroup;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A thread spinning on an empty CQ (20 ns a poll, from time 0) until a flag that a model event sets at a chosen
 * instant; the event also wakes the thread, as a landing CQE does. Sleeping through the empty polls must give what
 * one event per poll gives: the instant the flag is seen (at the very poll instant of the write, since turns come
 * last in their instant), the polls counted and charged, and, for a thread stopped from outside while asleep, the
 * polls it would have made by then.
 */
class HostThreadTest {
    private static final long POLL_PS = 20_000;

    /**
     * What a run shows: when the flag was seen, the CQ's polls charged and counted at the end, the polls the driver
     * counted just before a stop from outside (its statistics read alone while the thread may sleep), and turns run.
     */
    private record Seen(long seenPs, long emptyPollTimePs, long emptyPolls, long pollsBeforeStop, long events) {
    }

    private static Seen run(boolean eventPerPoll, long writePs, long stopPs, boolean stopAfterATurn) {
        return run(eventPerPoll, writePs, stopPs, stopAfterATurn, false, true);
    }

    /**
     * With {@code onTheFlag}, the thread looks only at the flag, which charges nothing, instead of polling the CQ (and
     * is woken once for nothing, half way to the write); without {@code readBeforeStop}, nothing reads the statistics
     * between the last event and a stop from outside.
     */
    private static Seen run(boolean eventPerPoll, long writePs, long stopPs, boolean stopAfterATurn,
            boolean onTheFlag, boolean readBeforeStop) {
        Simulator sim = new Simulator(1);
        HostPair pair = HostPair.create(sim, Profile.defaults());
        sim.run();
        long start = sim.now();
        CompletionQueue cq = pair.a().cq();
        HostThread thread = new HostThread(sim, pair.a().driver(), 0, "spinner", POLL_PS, 1, eventPerPoll);
        HostThread.IdleTurns emptyPoll = HostThread.idleTurns(cq::emptyPollPs, cq::skippedEmptyPolls);
        boolean[] flag = {false};
        long[] seen = {-1};
        long[] before = {-1};
        List<Long> turns = new ArrayList<>();
        long emptyTime0 = counter(pair.a().driver().core(0).stats(), "emptyPollTime");
        long empty0 = counter(pair.a().driver().stats(), "emptyPolls");
        thread.start(() -> {
            turns.add(sim.now());
            if (!onTheFlag) {
                assertThat(cq.poll()).isNull();
            }
            if (flag[0]) {
                seen[0] = sim.now() - start;
                thread.stop();
            } else {
                thread.idle(onTheFlag ? HostThread.FREE : emptyPoll);
            }
        });
        sim.event("write", () -> {
            flag[0] = true;
            thread.wake();
        }).schedule(start + writePs);
        if (onTheFlag) {
            sim.event("nothing", thread::wake).schedule(start + writePs / 2);
        }
        if (stopPs >= 0) {
            // Stop from outside between events, right after a model event or right after another thread's turn
            // (order 0: its turns come after the spinner's at one instant).
            Event last = stopAfterATurn ? sim.event("other", Event.MAX_PRIORITY, () -> { })
                    : sim.event("model", () -> { });
            last.schedule(start + stopPs);
            while (last.scheduled() && sim.step()) {
                // until the last event has run
            }
            if (readBeforeStop) {
                before[0] = counter(pair.a().driver().stats(), "emptyPolls") - empty0;
            }
            thread.stop();
        } else {
            while (seen[0] < 0 && sim.step()) {
                // until the flag is seen
            }
        }
        long emptyTime = counter(pair.a().driver().core(0).stats(), "emptyPollTime") - emptyTime0;
        long empty = counter(pair.a().driver().stats(), "emptyPolls") - empty0;
        return new Seen(seen[0], emptyTime, empty, before[0], turns.size());
    }

    /** A counter of the group, read as any reader does: after the group's refresh. */
    private static long counter(StatsGroup group, String name) {
        group.refresh();
        return group.stats().stream().filter(st -> st.fullName().endsWith("." + name)).map(st -> (Counter) st)
                .findFirst().orElseThrow().value();
    }

    @ParameterizedTest(name = "write at {0} ps")
    @CsvSource({"100000", "110000", "100001", "99999", "20000", "1", "0"})
    void theFlagIsSeenAtTheSamePollWithTheSamePollsCharged(long writePs) {
        Seen reference = run(true, writePs, -1, false);
        Seen sleeping = run(false, writePs, -1, false);
        assertThat(sleeping.seenPs()).isEqualTo(reference.seenPs());
        assertThat(sleeping.emptyPollTimePs()).isEqualTo(reference.emptyPollTimePs());
        assertThat(sleeping.emptyPolls()).isEqualTo(reference.emptyPolls());
        // A write at a poll instant is seen by that very poll.
        assertThat(reference.seenPs()).isEqualTo((writePs + POLL_PS - 1) / POLL_PS * POLL_PS);
        if (writePs > POLL_PS) {
            assertThat(sleeping.events()).isLessThan(reference.events());
        }
    }

    @ParameterizedTest(name = "stop at {0} ps after a turn: {1}")
    @CsvSource({"100000, false", "100000, true", "110000, false", "110000, true", "100001, true"})
    void aThreadStoppedWhileAsleepChargesThePollsItWouldHaveMade(long stopPs, boolean afterATurn) {
        long never = 1_000_000_000L;
        Seen reference = run(true, never, stopPs, afterATurn);
        Seen sleeping = run(false, never, stopPs, afterATurn);
        assertThat(sleeping.emptyPolls()).isEqualTo(reference.emptyPolls());
        assertThat(sleeping.emptyPollTimePs()).isEqualTo(reference.emptyPollTimePs());
        assertThat(sleeping.pollsBeforeStop()).isEqualTo(reference.pollsBeforeStop());
        // Stopped with nothing read since the last event, it still charges what it would have polled by then.
        Seen unread = run(false, never, stopPs, afterATurn, false, false);
        assertThat(unread.emptyPolls()).isEqualTo(reference.emptyPolls());
        // At a poll instant the poll has run only if the event the run stopped after comes after it.
        long polls = (stopPs + POLL_PS - 1) / POLL_PS + (stopPs % POLL_PS == 0 && afterATurn ? 1 : 0);
        assertThat(reference.emptyPolls()).isEqualTo(polls);
    }

    /** Spinning on a byte that costs nothing to look at: the thread sleeps too, and sees the write at the same poll. */
    @ParameterizedTest(name = "write at {0} ps")
    @CsvSource({"100000", "110000", "1"})
    void aThreadSpinningOnTheFlagAloneSleepsAndSeesTheWriteAtTheSamePoll(long writePs) {
        Seen reference = run(true, writePs, -1, false, true, true);
        Seen sleeping = run(false, writePs, -1, false, true, true);
        assertThat(sleeping.seenPs()).isEqualTo(reference.seenPs()).isEqualTo((writePs + POLL_PS - 1) / POLL_PS * POLL_PS);
        assertThat(sleeping.emptyPolls()).isZero();
        assertThat(reference.emptyPolls()).isZero();
        if (writePs > POLL_PS) {
            // The first turn, the look after the wake for nothing (then asleep again), the one that sees the write.
            assertThat(sleeping.events()).isEqualTo(3);
            assertThat(reference.events()).isGreaterThan(3);
        }
    }

    /** Work charged to the core while the thread sleeps would have moved its polls: a wake says so loudly. */
    @Test
    void aCoreThatTookWorkWhileItsThreadSleptFailsLoudly() {
        Simulator sim = new Simulator(1);
        HostPair pair = HostPair.create(sim, Profile.defaults());
        sim.run();
        CompletionQueue cq = pair.a().cq();
        HostThread thread = new HostThread(sim, pair.a().driver(), 0, "spinner", POLL_PS, 1, false);
        HostThread.IdleTurns emptyPoll = HostThread.idleTurns(cq::emptyPollPs, cq::skippedEmptyPolls);
        thread.start(() -> {
            assertThat(cq.poll()).isNull();
            thread.idle(emptyPoll);
        });
        sim.event("elsewhere", () -> assertThat(cq.poll()).isNull()).schedule(sim.now() + 50_000);
        sim.event("write", thread::wake).schedule(sim.now() + 90_000);
        assertThatThrownBy(sim::run).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("spinner: its core took work while the thread slept");
    }

    @Test
    void ordersThatWouldPutTurnsBeforeClockEdgesAndASecondStartAreRefused() {
        Simulator sim = new Simulator(1);
        HostPair pair = HostPair.create(sim, Profile.defaults());
        assertThatThrownBy(() -> new HostThread(sim, pair.a().driver(), 0, "t", POLL_PS, -1, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("thread order -1");
        int last = Event.MAX_PRIORITY - ClockDomain.EDGE_PRIORITY;
        assertThatThrownBy(() -> new HostThread(sim, pair.a().driver(), 0, "t", POLL_PS, last, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("after clock edges");
        HostThread ok = new HostThread(sim, pair.a().driver(), 0, "t", POLL_PS, last - 1, false);
        ok.start(() -> { });
        assertThatThrownBy(() -> ok.start(() -> { })).isInstanceOf(IllegalStateException.class)
                .hasMessage("thread already running");
    }
}
