package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An event's own checks, its state while queued and idle, and how it names itself. */
class EventTest {

    @Test
    void theExtremePrioritiesAreAcceptedAndOneBeyondIsRefused() {
        Simulator sim = new Simulator();
        assertThat(sim.event("lowest", Event.MIN_PRIORITY, () -> { }).priority()).isEqualTo(Event.MIN_PRIORITY);
        assertThat(sim.event("highest", Event.MAX_PRIORITY, () -> { }).priority()).isEqualTo(Event.MAX_PRIORITY);
        assertThat(sim.event("plain", () -> { }).priority()).isEqualTo(Event.DEFAULT_PRIORITY);
        assertThatThrownBy(() -> sim.event("under", Event.MIN_PRIORITY - 1, () -> { }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("event 'under': priority -32769 outside [-32768, 32767]");
        assertThatThrownBy(() -> sim.event("over", Event.MAX_PRIORITY + 1, () -> { }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("event 'over': priority 32768 outside [-32768, 32767]");
    }

    /** The extremes order correctly: the whole priority range packs into the order word. */
    @Test
    void theExtremePrioritiesRunFirstAndLastAtTheirTime() {
        Simulator sim = new Simulator();
        List<String> ran = new ArrayList<>();
        sim.event("max", Event.MAX_PRIORITY, () -> ran.add("max")).schedule(10);
        sim.event("zero", () -> ran.add("zero")).schedule(10);
        sim.event("min", Event.MIN_PRIORITY, () -> ran.add("min")).schedule(10);
        sim.event("max-earlier", Event.MAX_PRIORITY, () -> ran.add("max-earlier")).schedule(9);
        sim.run();
        assertThat(ran).containsExactly("max-earlier", "min", "zero", "max");
    }

    @Test
    void timeIsReadableOnlyWhileScheduled() {
        Simulator sim = new Simulator();
        Event e = sim.event("tick", () -> { });
        assertThat(e.scheduled()).isFalse();
        assertThatThrownBy(e::time).isInstanceOf(IllegalStateException.class)
                .hasMessage("event 'tick' is not scheduled");
        e.schedule(42);
        assertThat(e.scheduled()).isTrue();
        assertThat(e.time()).isEqualTo(42);
        sim.run();
        assertThat(e.scheduled()).isFalse();
        assertThatThrownBy(e::time).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aZeroDelayRunsNowAndANegativeOneIsRefused() {
        Simulator sim = new Simulator();
        List<Long> fired = new ArrayList<>();
        Event e = sim.event("soon", () -> fired.add(sim.now()));
        sim.runUntil(500);
        e.scheduleIn(0);
        assertThat(e.time()).isEqualTo(500);
        sim.run();
        assertThat(fired).containsExactly(500L);
        assertThatThrownBy(() -> e.scheduleIn(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("event 'soon': negative delay -1 ps");
        assertThat(e.scheduled()).isFalse();
    }

    @Test
    void scheduleInCountsFromTheCurrentTime() {
        Simulator sim = new Simulator();
        Event e = sim.event("later", () -> { });
        sim.runUntil(1_000);
        e.scheduleIn(250);
        assertThat(e.time()).isEqualTo(1_250);
    }

    @Test
    void rescheduleMovesAQueuedEventAndSchedulesAnIdleOne() {
        Simulator sim = new Simulator();
        List<Long> fired = new ArrayList<>();
        Event e = sim.event("moved", () -> fired.add(sim.now()));
        e.reschedule(30);
        assertThat(e.time()).isEqualTo(30);
        assertThat(sim.pendingEvents()).isEqualTo(1);
        e.reschedule(20);
        assertThat(e.time()).isEqualTo(20);
        assertThat(sim.pendingEvents()).isEqualTo(1);
        sim.run();
        assertThat(fired).containsExactly(20L);
    }

    @Test
    void cancelSaysWhetherTheEventWasQueued() {
        Simulator sim = new Simulator();
        Event e = sim.event("maybe", () -> { });
        assertThat(e.cancel()).isFalse();
        e.schedule(5);
        assertThat(e.cancel()).isTrue();
        assertThat(e.scheduled()).isFalse();
        assertThat(sim.pendingEvents()).isZero();
        assertThat(e.cancel()).isFalse();
    }

    @Test
    void toStringShowsTheTimeWhileScheduled() {
        Simulator sim = new Simulator();
        Event e = sim.event("wake", () -> { });
        assertThat(e).hasToString("wake(idle)");
        e.schedule(1_500);
        assertThat(e).hasToString("wake@1500ps");
        assertThat(e.name()).isEqualTo("wake");
    }

    @Test
    void nameActionAndSimulatorAreRequired() {
        Simulator sim = new Simulator();
        assertThatThrownBy(() -> sim.event(null, () -> { })).isInstanceOf(NullPointerException.class)
                .hasMessage("name");
        assertThatThrownBy(() -> sim.event("x", null)).isInstanceOf(NullPointerException.class)
                .hasMessage("action");
        assertThatThrownBy(() -> new Event(null, "x", 0, () -> { })).isInstanceOf(NullPointerException.class)
                .hasMessage("sim");
    }
}
