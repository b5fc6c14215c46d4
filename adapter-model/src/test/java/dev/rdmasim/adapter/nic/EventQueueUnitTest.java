package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.adapter.pcie.PcieConfig;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The event queue unit alone: events raised behind a caller's own data write on the caller's port, in bursts with
 * random pauses, through a shallow channel. Scoreboard at the host: per event, the data, then the EQE, then the
 * MSI-X message become visible in that order; the EQE at the producer's slot has the right type, resource and owner
 * bit (flipping on each pass over the ring) when its interrupt fires; the interrupt carries vector 0 and
 * {@link EventQueueUnit#MSIX_DATA}; the listener hears the EQE and then the message for every event.
 */
class EventQueueUnitTest {
    private static final long MSIX = PcieConfig.defaults().msixAddress(0);
    private static final int IN_FLIGHT = 4;

    /** What the test expects of one event. */
    private record Expected(int kind, int a, int b, long dataAddr, byte[] data, long notBefore) {
    }

    private static final class Run implements DmaCallback {
        final BlockHarness h;
        final SplittableRandom rnd;
        final EventQueueUnit eq;
        final DmaPort port;
        final int logSize;
        final long ring;
        final int total;
        final Event tick;
        final List<Expected> expected = new ArrayList<>();
        final List<String> hostOrder = new ArrayList<>();
        final List<String> wanted = new ArrayList<>();
        final List<String> heard = new ArrayList<>();
        final List<String> wantedHeard = new ArrayList<>();
        int interrupts;
        int raised;
        int inFlight;
        long lastReady;

        Run(long seed) {
            rnd = new SplittableRandom(seed);
            h = new BlockHarness(seed, BlockHarness.randomPcie(rnd));
            eq = new EventQueueUnit(h.top, MSIX, IN_FLIGHT);
            // Each event is three requests on the port (data, EQE, message): a burst of IN_FLIGHT may all wait.
            port = h.port("event", 1 + rnd.nextInt(3), 3 * IN_FLIGHT);
            logSize = 1 + rnd.nextInt(3);
            ring = h.mem.allocate(Eqe.SIZE << logSize, 4096);
            byte[] init = new byte[Eqe.SIZE << logSize];
            Eqe.initRing(init, 0, 1 << logSize);
            h.mem.write(ring, init, 0, init.length);
            eq.create(ring, logSize);
            total = 5 << logSize;
            tick = h.sim.event("raiser", this::burst);
            h.link.host().setWriteObserver((addr, len) -> {
                // A data write larger than a TLP's payload arrives in pieces: one entry per write.
                String n = name(addr);
                if (hostOrder.isEmpty() || !n.startsWith("data") || !hostOrder.get(hostOrder.size() - 1).equals(n)) {
                    hostOrder.add(n);
                }
            });
            h.link.host().setInterruptHandler(this::interrupt);
        }

        String name(long addr) {
            if (addr == MSIX) {
                return "msi";
            }
            if (addr >= ring && addr < ring + (Eqe.SIZE << logSize)) {
                return "eqe@" + (addr - ring) / Eqe.SIZE;
            }
            for (int i = 0; i < expected.size(); i++) {
                Expected e = expected.get(i);
                if (addr >= e.dataAddr && addr < e.dataAddr + e.data.length) {
                    return "data" + i;
                }
            }
            return "?" + Long.toHexString(addr);
        }

        void burst() {
            int n = 1 + rnd.nextInt(IN_FLIGHT);
            while (n-- > 0 && raised < total) {
                int i = raised++;
                byte[] d = new byte[1 + rnd.nextInt(rnd.nextBoolean() ? 64 : 2000)];
                rnd.nextBytes(d);
                long addr = 0x5000_0000L + (long) i * 0x1000;
                port.send(new DmaRequest().write(addr, d, 0, d.length, this, i, false));
                int kind = rnd.nextInt(4);
                int a = rnd.nextInt(1 << 24);
                int b = rnd.nextInt(256);
                long notBefore = EventQueueUnit.NOW;
                if (kind == 3 && rnd.nextBoolean()) {
                    // Ready times on one channel never decrease: a raiser's are the instants of its own work.
                    notBefore = Math.max(lastReady, h.sim.now() + rnd.nextLong(3_000_000));
                    lastReady = notBefore;
                }
                expected.add(new Expected(kind, a, b, addr, d, notBefore));
                wanted.add("data" + i);
                wanted.add("eqe@" + (i & ((1 << logSize) - 1)));
                wanted.add("msi");
                wantedHeard.add(i + ":eqe");
                wantedHeard.add(i + ":msi");
                EventQueueUnit.Listener l = interrupt -> heard.add(i + (interrupt ? ":msi" : ":eqe"));
                switch (kind) {
                    case 0 -> eq.completion(port, a, l);
                    case 1 -> eq.cqError(port, a, l);
                    case 2 -> eq.command(port, a, b, l);
                    default -> eq.qpEvent(port, Eqe.TYPE_WQ_ACCESS_ERROR, a, notBefore, l);
                }
                inFlight++;
            }
        }

        void interrupt(int vector, int data) {
            int i = interrupts++;
            Expected e = expected.get(i);
            assertThat(vector).isZero();
            assertThat(data).isEqualTo(EventQueueUnit.MSIX_DATA);
            assertThat(h.mem.equalsRange(e.dataAddr, e.data, 0, e.data.length)).as("event %d's data is in memory", i).isTrue();
            if (e.notBefore != EventQueueUnit.NOW) {
                assertThat(h.sim.now()).as("event %d held until its ready time", i).isGreaterThanOrEqualTo(e.notBefore);
            }
            byte[] eqe = new byte[Eqe.SIZE];
            h.mem.read(ring + (long) (i & ((1 << logSize) - 1)) * Eqe.SIZE, eqe, 0, Eqe.SIZE);
            assertThat(Eqe.owner(eqe, 0)).as("owner bit of event %d", i).isEqualTo((i >> logSize) & 1);
            switch (e.kind) {
                case 0 -> {
                    assertThat(Eqe.type(eqe, 0)).isEqualTo(Eqe.TYPE_COMPLETION);
                    assertThat(Eqe.resource(eqe, 0)).isEqualTo(e.a);
                }
                case 1 -> {
                    assertThat(Eqe.type(eqe, 0)).isEqualTo(Eqe.TYPE_CQ_ERROR);
                    assertThat(Eqe.cqErrorCqn(eqe, 0)).isEqualTo(e.a);
                    assertThat(Eqe.cqErrorSyndrome(eqe, 0)).isEqualTo(Eqe.CQ_ERROR_OVERRUN);
                }
                case 2 -> {
                    assertThat(Eqe.type(eqe, 0)).isEqualTo(Eqe.TYPE_COMMAND);
                    assertThat(Eqe.commandIndex(eqe, 0)).isEqualTo(e.a);
                    assertThat(Eqe.commandToken(eqe, 0)).isEqualTo(e.b);
                }
                default -> {
                    assertThat(Eqe.type(eqe, 0)).isEqualTo(Eqe.TYPE_WQ_ACCESS_ERROR);
                    assertThat(Eqe.resource(eqe, 0)).isEqualTo(e.a);
                }
            }
            assertThat(Eqe.isSoftwareOwned(eqe, 0, i, logSize)).as("event %d is software's under the CQ rule", i).isTrue();
            inFlight--;
            if (inFlight == 0 && raised < total) {
                tick.scheduleIn(rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(2_000_000));
            }
        }

        @Override
        public void writeSent(DmaRequest r) {
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void eventsFollowTheirDataAndCarryTheRingsOwnerBit(long seed) {
        Run run = new Run(seed);
        run.tick.schedule(0);
        run.h.sim.run();

        assertThat(run.interrupts).as("one interrupt per event").isEqualTo(run.total);
        assertThat(run.hostOrder).as("data, then EQE, then MSI-X, event after event").isEqualTo(run.wanted);
        assertThat(run.heard).as("the listener hears both writes of every event").isEqualTo(run.wantedHeard);
        assertThat(run.eq.producer()).isEqualTo(run.total);
        assertThat(BlockHarness.counter(run.eq, "events")).isEqualTo(run.total);
        assertThat(BlockHarness.counter(run.eq, "interrupts")).isEqualTo(run.total);
        assertThat(run.port.blocked()).isFalse();
    }

    /** The message is a 4-byte write of the vector's data word at the MSI-X address the unit was built with. */
    @Test
    void messageIsTheDataWordAtTheMsixAddress() {
        BlockHarness h = new BlockHarness(1);
        EventQueueUnit eq = new EventQueueUnit(h.top, MSIX, 2);
        DmaPort port = h.port("event", 4, 0);
        long ring = h.mem.allocate(Eqe.SIZE * 4, 4096);
        eq.create(ring, 2);
        List<long[]> writes = new ArrayList<>();
        int[] fired = {-1, -1};
        h.link.host().setWriteObserver((addr, len) -> writes.add(new long[] {addr, len}));
        h.link.host().setInterruptHandler((v, d) -> {
            fired[0] = v;
            fired[1] = d;
        });
        eq.command(port, 7, 0x5A, i -> { });
        h.sim.run();
        assertThat(writes).hasSize(2);
        assertThat(writes.get(0)).containsExactly(ring, Eqe.SIZE);
        assertThat(writes.get(1)).containsExactly(MSIX, 4);
        assertThat(fired).containsExactly(0, EventQueueUnit.MSIX_DATA);
        byte[] eqe = new byte[Eqe.SIZE];
        h.mem.read(ring, eqe, 0, Eqe.SIZE);
        assertThat(BigEndian.i32(eqe, Eqe.OFF_COMMAND_INDEX)).isEqualTo(7);
        assertThat(eqe[Eqe.OFF_COMMAND_TOKEN] & 0xff).isEqualTo(0x5A);
        assertThat(Eqe.owner(eqe, 0)).isZero();
    }

    /** More events at once than request pairs, or an event before the ring exists, fail loudly. */
    @Test
    void tooManyEventsOrNoRingFailLoudly() {
        BlockHarness h = new BlockHarness(1);
        EventQueueUnit eq = new EventQueueUnit(h.top, MSIX, 2);
        DmaPort port = h.port("event", 16, 0);
        assertThatThrownBy(() -> eq.completion(port, 1, i -> { }))
                .isInstanceOf(InvariantViolation.class).hasMessageContaining("before the driver created");
        eq.create(h.mem.allocate(Eqe.SIZE * 8, 4096), 3);
        eq.completion(port, 1, i -> { });
        eq.completion(port, 2, i -> { });
        assertThatThrownBy(() -> eq.completion(port, 3, i -> { }))
                .isInstanceOf(InvariantViolation.class).hasMessageContaining("2 events in flight");
        h.sim.run();
        // Once the messages have left, the pairs are free again.
        eq.completion(port, 3, i -> { });
        h.sim.run();
        assertThat(eq.producer()).isEqualTo(3);
    }
}
