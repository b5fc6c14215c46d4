package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatorTest {

    @Test
    void refusesToScheduleInThePast() {
        Simulator sim = new Simulator();
        Event tick = sim.event("tick", () -> { });
        tick.schedule(100);
        sim.run();
        assertThat(sim.now()).isEqualTo(100);
        Event late = sim.event("late", () -> { });
        assertThatThrownBy(() -> late.schedule(99)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'late'").hasMessageContaining("in the past");
        assertThatThrownBy(() -> late.scheduleIn(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesToScheduleTwice() {
        Simulator sim = new Simulator();
        Event e = sim.event("once", () -> { });
        e.schedule(5);
        assertThatThrownBy(() -> e.schedule(6)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already scheduled");
    }

    @Test
    void eventsAreReusableAndCanRescheduleThemselves() {
        Simulator sim = new Simulator();
        List<Long> times = new ArrayList<>();
        Event[] self = new Event[1];
        self[0] = sim.event("periodic", () -> {
            times.add(sim.now());
            if (times.size() < 5) {
                self[0].scheduleIn(10);
            }
        });
        self[0].schedule(0);
        sim.run();
        assertThat(times).containsExactly(0L, 10L, 20L, 30L, 40L);
        assertThat(sim.eventsExecuted()).isEqualTo(5);
    }

    @Test
    void cancelAndReschedule() {
        Simulator sim = new Simulator();
        List<String> log = new ArrayList<>();
        Event a = sim.event("a", () -> log.add("a@" + sim.now()));
        Event b = sim.event("b", () -> log.add("b@" + sim.now()));
        a.schedule(10);
        b.schedule(20);
        assertThat(a.cancel()).isTrue();
        assertThat(a.cancel()).isFalse();
        b.reschedule(5);
        a.reschedule(7);
        sim.run();
        assertThat(log).containsExactly("b@5", "a@7");
    }

    @Test
    void runUntilStopsAtTheBoundaryAndAdvancesTime() {
        Simulator sim = new Simulator();
        List<Long> fired = new ArrayList<>();
        for (long t : new long[] {5, 10, 15}) {
            sim.event("e" + t, () -> fired.add(sim.now())).schedule(t);
        }
        assertThat(sim.runUntil(10)).isTrue();
        assertThat(fired).containsExactly(5L, 10L);
        assertThat(sim.now()).isEqualTo(10);
        assertThat(sim.nextEventTime()).isEqualTo(15);
        sim.runUntil(12);
        assertThat(sim.now()).isEqualTo(12);
        assertThatThrownBy(() -> sim.runUntil(11)).isInstanceOf(IllegalArgumentException.class);
        sim.run();
        assertThat(fired).containsExactly(5L, 10L, 15L);
    }

    @Test
    void stopEndsTheRunAfterTheCurrentEvent() {
        Simulator sim = new Simulator();
        List<Long> fired = new ArrayList<>();
        sim.event("a", () -> {
            fired.add(sim.now());
            sim.stop();
        }).schedule(1);
        sim.event("b", () -> fired.add(sim.now())).schedule(2);
        sim.run();
        assertThat(fired).containsExactly(1L);
        sim.run();
        assertThat(fired).containsExactly(1L, 2L);
    }

    @Test
    void runWithLimitCountsEvents() {
        Simulator sim = new Simulator();
        for (int i = 0; i < 10; i++) {
            sim.event("e" + i, () -> { }).schedule(i);
        }
        assertThat(sim.run(4)).isEqualTo(4);
        assertThat(sim.step()).isTrue();
        assertThat(sim.pendingEvents()).isEqualTo(5);
        assertThat(sim.run(100)).isEqualTo(5);
        assertThat(sim.step()).isFalse();
    }

    @Test
    void rejectsPriorityOutOfRange() {
        Simulator sim = new Simulator();
        assertThatThrownBy(() -> sim.event("x", Event.MAX_PRIORITY + 1, () -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("priority");
    }

    @Test
    void topLevelNamesAreUnique() {
        Simulator sim = new Simulator();
        sim.registerTopLevel("nicA");
        assertThatThrownBy(() -> sim.registerTopLevel("nicA")).hasMessageContaining("nicA");
    }

    @Test
    void formatsTimes() {
        assertThat(Time.format(1_500_000)).isEqualTo("1.5us");
        assertThat(Time.format(250_000)).isEqualTo("250ns");
        assertThat(Time.format(17)).isEqualTo("17ps");
        assertThat(Time.format(0)).isEqualTo("0ps");
        assertThat(Time.format(2 * Time.S)).isEqualTo("2s");
    }

    @Test
    void anEventMayBeScheduledForTheCurrentInstant() {
        Simulator sim = new Simulator();
        List<String> log = new ArrayList<>();
        Event second = sim.event("second", () -> log.add("second@" + sim.now()));
        sim.event("first", () -> {
            log.add("first@" + sim.now());
            second.schedule(sim.now());
        }).schedule(40);
        sim.run();
        assertThat(log).containsExactly("first@40", "second@40");
    }

    @Test
    void schedulingAQueuedEventAgainNamesItsTime() {
        Simulator sim = new Simulator();
        Event e = sim.event("once", () -> { });
        e.schedule(5);
        assertThatThrownBy(() -> e.schedule(6)).isInstanceOf(IllegalStateException.class)
                .hasMessage("event 'once' is already scheduled at 5 ps; cancel or reschedule it instead");
        assertThat(e.time()).isEqualTo(5);
        assertThat(sim.pendingEvents()).isEqualTo(1);
    }

    @Test
    void thePastMessageNamesBothTimes() {
        Simulator sim = new Simulator();
        sim.runUntil(100);
        Event late = sim.event("late", () -> { });
        assertThatThrownBy(() -> late.schedule(99)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot schedule event 'late' at 99 ps: that is in the past (now 100 ps)");
        assertThat(late.scheduled()).isFalse();
        assertThat(sim.pendingEvents()).isZero();
    }

    @Test
    void aQueueThatIsNotEmptyIsRefused() {
        EventQueue used = new DaryHeapEventQueue();
        Simulator other = new Simulator(1, used);
        other.event("left", () -> { }).schedule(3);
        assertThatThrownBy(() -> new Simulator(1, used)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the event queue must start empty");
        assertThatThrownBy(() -> new Simulator(1, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void seedStatsAndClockAreTheSimulators() {
        Simulator sim = new Simulator(77);
        assertThat(sim.seed()).isEqualTo(77);
        assertThat(sim.random().runSeed()).isEqualTo(77);
        assertThat(new Simulator().seed()).isEqualTo(1);
        assertThat(sim.stats()).isNotNull().isSameAs(sim.stats());
        sim.runUntil(1_234);
        assertThat(sim.now()).isEqualTo(1_234);
        assertThat(sim.nowPs()).isEqualTo(1_234);
    }

    @Test
    void oneWaveformWriterMayBeAttached() {
        Simulator sim = new Simulator();
        assertThat(sim.wave()).isNull();
        VcdWriter writer = new VcdWriter(new StringWriter(), sim, SignalFilter.ALL);
        sim.attachWave(writer);
        assertThat(sim.wave()).isSameAs(writer);
        VcdWriter second = new VcdWriter(new StringWriter(), sim, SignalFilter.ALL);
        assertThatThrownBy(() -> sim.attachWave(second)).isInstanceOf(IllegalStateException.class)
                .hasMessage("a waveform writer is already attached");
        assertThat(sim.wave()).isSameAs(writer);
        assertThatThrownBy(() -> new Simulator().attachWave(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void runUntilCountsTheEventsItRunsAndReportsAStop() {
        Simulator sim = new Simulator();
        List<Long> fired = new ArrayList<>();
        for (long t : new long[] {5, 10, 15, 20}) {
            sim.event("e" + t, () -> {
                fired.add(sim.now());
                if (sim.now() == 10) {
                    sim.stop();
                }
            }).schedule(t);
        }
        assertThat(sim.runUntil(100)).isFalse();
        assertThat(fired).containsExactly(5L, 10L);
        assertThat(sim.now()).isEqualTo(10);
        assertThat(sim.eventsExecuted()).isEqualTo(2);
        // A stop asked for by an earlier run does not end the next one.
        assertThat(sim.runUntil(100)).isTrue();
        assertThat(fired).containsExactly(5L, 10L, 15L, 20L);
        assertThat(sim.now()).isEqualTo(100);
        assertThat(sim.eventsExecuted()).isEqualTo(4);
    }

    @Test
    void runUntilTheCurrentInstantRunsWhatIsDueNow() {
        Simulator sim = new Simulator();
        List<Long> fired = new ArrayList<>();
        sim.event("now", () -> fired.add(sim.now())).schedule(0);
        sim.event("later", () -> fired.add(sim.now())).schedule(1);
        assertThat(sim.runUntil(0)).isTrue();
        assertThat(fired).containsExactly(0L);
        assertThat(sim.nextEventTime()).isEqualTo(1);
    }

    @Test
    void runCountsAcrossCallsAndAStopBeforeARunIsForgotten() {
        Simulator sim = new Simulator();
        for (int i = 0; i < 6; i++) {
            sim.event("e" + i, () -> { }).schedule(i);
        }
        sim.stop();
        assertThat(sim.run(2)).isEqualTo(2);
        assertThat(sim.eventsExecuted()).isEqualTo(2);
        assertThat(sim.run(0)).isZero();
        sim.run();
        assertThat(sim.eventsExecuted()).isEqualTo(6);
        assertThat(sim.now()).isEqualTo(5);
        assertThat(sim.nextEventTime()).isEqualTo(Long.MAX_VALUE);
        assertThat(sim.pendingEvents()).isZero();
    }

    @Test
    void wouldHaveRunAtComparesWithTheEventThatRanLastAtThisInstant() {
        Simulator sim = new Simulator();
        assertThat(sim.wouldHaveRunAt(0)).as("nothing ran yet").isFalse();
        Event mid = sim.event("mid", 5, () -> { });
        mid.schedule(100);
        sim.run();
        assertThat(sim.wouldHaveRunAt(4)).as("a lower priority runs first").isTrue();
        assertThat(sim.wouldHaveRunAt(5)).as("the same priority is not told apart").isFalse();
        assertThat(sim.wouldHaveRunAt(6)).isFalse();
        sim.runUntil(200);
        assertThat(sim.wouldHaveRunAt(4)).as("the last event ran at an earlier instant").isFalse();
    }
}
