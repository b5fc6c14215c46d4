package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import org.junit.jupiter.api.Test;

/**
 * What a broken peer or a misused block runs into: TLPs the other end never sends (a completion that does not
 * continue its tag, a read of the device, a completion to the host, an MMIO write with nowhere to go), resets with
 * work still in flight, and channel set-up mistakes. Each fails loudly, naming what was wrong; the case just inside
 * each check goes through.
 */
class PcieInvariantsTest {
    private static final DmaCallback READS = new DmaCallback() {
        @Override
        public void readDone(DmaRequest request) {
        }
    };

    /** A link whose device has one 64 B read at 0x1000 outstanding on tag 0, its request not yet at the host. */
    private static PcieLink readOutstanding(Simulator sim) {
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 1);
        assertThat(ch.submit(new DmaRequest().read(0x1000, new byte[64], 0, 64, READS, 0))).isTrue();
        sim.runUntil(1_000);
        assertThat(link.dma().tagsInUse()).isEqualTo(1);
        return link;
    }

    private static Tlp tlp(TlpKind kind, long address, int length, int tag, int byteCount) {
        Tlp t = new Tlp(256);
        t.kind = kind;
        t.address = address;
        t.length = length;
        t.tag = tag;
        t.byteCount = byteCount;
        return t;
    }

    @Test
    void aCompletionMustContinueItsTagInOrder() {
        Simulator sim = new Simulator(1);
        PcieLink wrongAddress = readOutstanding(sim);
        assertThatThrownBy(() -> wrongAddress.dma().linkEnd.receive(tlp(TlpKind.CPLD, 0x1008, 56, 0, 56)))
                .isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("CPLD[addr=0x1008 len=56 tag=0] does not continue tag 0 in order");
        Simulator sim2 = new Simulator(1);
        PcieLink wrongCount = readOutstanding(sim2);
        assertThatThrownBy(() -> wrongCount.dma().linkEnd.receive(tlp(TlpKind.CPLD, 0x1000, 32, 0, 32)))
                .isInstanceOf(InvariantViolation.class).hasMessageContaining("does not continue tag 0");
        Simulator sim3 = new Simulator(1);
        PcieLink tooLong = readOutstanding(sim3);
        assertThatThrownBy(() -> tooLong.dma().linkEnd.receive(tlp(TlpKind.CPLD, 0x1000, 65, 0, 64)))
                .isInstanceOf(InvariantViolation.class).hasMessageContaining("does not continue tag 0");
        Simulator sim4 = new Simulator(1);
        PcieLink foreign = readOutstanding(sim4);
        assertThatThrownBy(() -> foreign.dma().linkEnd.receive(tlp(TlpKind.CPLD, 0x1000, 64, 1, 64)))
                .isInstanceOf(InvariantViolation.class).hasMessageContaining("completion for free tag 1");
        // The completion the read asked for: the tag is free again and the read done.
        Simulator sim5 = new Simulator(1);
        PcieLink right = readOutstanding(sim5);
        Tlp first = tlp(TlpKind.CPLD, 0x1000, 16, 0, 64);
        first.payload[0] = 7;
        right.dma().linkEnd.receive(first);
        assertThat(right.dma().tagsInUse()).isEqualTo(1);
        right.dma().linkEnd.receive(tlp(TlpKind.CPLD, 0x1010, 48, 0, 48));
        assertThat(right.dma().tagsInUse()).isZero();
        assertThat(right.dma().completionsReceived()).isEqualTo(2);
    }

    @Test
    void theDeviceServesNoReadsAndNeedsAnMmioTargetAndTheHostGetsNoCompletions() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        assertThatThrownBy(() -> link.dma().linkEnd.receive(tlp(TlpKind.MRD, 0x40, 4, 0, 4)))
                .isInstanceOf(InvariantViolation.class)
                .hasMessage("pcie.dma: the device does not serve host reads, got MRD[addr=0x40 len=4 tag=0]");
        assertThatThrownBy(() -> link.dma().linkEnd.receive(tlp(TlpKind.MWR, 0x800, 8, 0, 0)))
                .isInstanceOf(InvariantViolation.class).hasMessageContaining("no MMIO target is set");
        assertThatThrownBy(() -> link.host().linkEnd.receive(tlp(TlpKind.CPLD, 0x40, 4, 3, 4)))
                .isInstanceOf(InvariantViolation.class)
                .hasMessage("pcie.rc: the host never reads from the device, yet got CPLD[addr=0x40 len=4 tag=3]");
    }

    @Test
    void aWriteCannotBeAppliedBeforeItsLastTlpWasSent() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        DmaRequest w = new DmaRequest().write(0x1000, new byte[8], 0, 8, new DmaCallback() {
            @Override
            public void writeSent(DmaRequest request) {
            }
        }, 0, true);
        assertThatThrownBy(() -> link.dma().writeApplied(w)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("applied before its last TLP was sent");
    }

    @Test
    void resetsRefuseWorkInFlightAndAcceptAnIdleLink() {
        // A read waiting for its completions: the engine holds a tag, the host a read, the links TLPs.
        Simulator sim = new Simulator(1);
        PcieLink link = readOutstanding(sim);
        assertThatThrownBy(link.dma()::reset).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("pcie.dma: reset with DMA requests queued or reads outstanding");
        assertThatThrownBy(link.up()::reset).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("pcie.up: reset with TLPs still queued or on the wire");
        sim.runUntil(200_000); // the request is at the host, its completion not yet queued
        assertThat(link.host().pendingReads()).isEqualTo(1);
        assertThatThrownBy(link.host()::reset).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("pcie.rc: reset with device reads still being served");
        assertThatThrownBy(link.down()::reset).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("pcie.down: reset with TLPs still queued or on the wire");
        // Writes queued in a channel, no tag held: a transmit queue of one posted TLP lets one TLP out at a time.
        Simulator sim3 = new Simulator(1);
        PcieLink writes = new PcieLink(sim3, "pcie", PcieConfig.defaults().withQueues(1, 16), new HostMemory("host"));
        DmaChannel wr = writes.dma().addChannel("wr", 3);
        for (int i = 0; i < 3; i++) {
            assertThat(wr.submit(new DmaRequest().write(0x10000L * (i + 1), new byte[4096], 0, 4096, new DmaCallback() {
                @Override
                public void writeSent(DmaRequest request) {
                }
            }, i, false))).isTrue();
        }
        sim3.runUntil(1_000);
        assertThat(writes.dma().tagsInUse()).isZero();
        assertThatThrownBy(writes.dma()::reset).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("reset with DMA requests queued");
        // Queued and not yet issued: a channel behind a full set of tags.
        Simulator sim2 = new Simulator(1);
        PcieLink queued = new PcieLink(sim2, "pcie", PcieConfig.defaults().withReadTags(1), new HostMemory("host"));
        DmaChannel ch = queued.dma().addChannel("rd", 2);
        ch.submit(new DmaRequest().read(0x1000, new byte[64], 0, 64, READS, 0));
        ch.submit(new DmaRequest().read(0x2000, new byte[64], 0, 64, READS, 1));
        sim2.run();
        assertThatCode(queued::reset).doesNotThrowAnyException();
        assertThat(queued.up().wireBytes()).isZero();
        assertThat(queued.down().wireBytes()).isZero();
    }

    @Test
    void aChannelNeedsRoomForOneRequestAndANameOfItsOwn() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        assertThatThrownBy(() -> link.dma().addChannel("none", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pcie.dma: channel 'none' depth must be >= 1, got 0");
        DmaChannel one = link.dma().addChannel("one", 1);
        assertThat(one.depth()).isEqualTo(1);
        link.dma().addChannel("two", 2);
        assertThatThrownBy(() -> link.dma().addChannel("two", 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pcie.dma already has a channel named 'two'");
        assertThat(link.dma().channels()).extracting(DmaChannel::name).containsExactly("one", "two");
    }

    /** A link built inside a parent is named under it and keeps its configuration; it cannot be built without one. */
    @Test
    void aLinkInsideAParentKeepsItsConfigurationAndNeedsOne() {
        Simulator sim = new Simulator(1);
        Module nic = new Module(sim, "nic") {
        };
        PcieConfig cfg = PcieConfig.defaults().withReadTags(3);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(nic, "pcie", cfg, mem);
        assertThat(link.config()).isSameAs(cfg);
        assertThat(link.host().memory()).isSameAs(mem);
        // The pool starts with TLPs made ahead of the first use.
        assertThat(link.tlpsAllocated()).isPositive();
        assertThat(link.dma().fullName()).isEqualTo("nic.pcie.dma");
        assertThat(link.up().fullName()).isEqualTo("nic.pcie.up");
        assertThatThrownBy(() -> new PcieLink(nic, "other", null, new HostMemory("host")))
                .isInstanceOf(NullPointerException.class).hasMessage("config");
        assertThatThrownBy(() -> new PcieLink(sim, "top", null, new HostMemory("host")))
                .isInstanceOf(NullPointerException.class).hasMessage("config");
        assertThat(new PcieLink(sim, "top2", cfg, new HostMemory("host")).config()).isSameAs(cfg);
    }
}
