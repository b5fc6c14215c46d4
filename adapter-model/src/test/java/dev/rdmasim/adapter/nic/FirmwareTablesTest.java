package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.format.Command.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The firmware tables' own rules, called directly (the command unit's test drives them through the command ring):
 * lowest-free numbering with the reserved numbers, full tables, the limits at their boundaries, the resize rule on
 * unconsumed CQEs, and that a refusal changes nothing and names its reason. The tables need every block that holds
 * per-QP state, so they come from an adapter that never runs traffic.
 */
class FirmwareTablesTest {
    private HostMemory mem;
    private Adapter nic;
    private FirmwareTables fw;

    @BeforeEach
    void build() {
        mem = new HostMemory("host");
        // Queue depths first: each override is checked against the limits already set.
        Profile p = Profile.defaults().with("qp.receiveQueueDepth", "4").with("qp.initiatorQueueDepth", "4")
                .with("nic.maxQps", "4").with("nic.maxCqs", "3").with("nic.maxMrs", "3").with("nic.maxPds", "3")
                .with("ndk.maxCqDepth", "8").with("ndk.maxReceiveQueueDepth", "5")
                .with("ndk.maxWindowSize", "1MiB").with("ndk.maxRegistrationSize", "1MiB");
        nic = new Adapter(new Simulator(1), "nic", p, mem, 2, 3);
        fw = nic.firmware;
    }

    /** Every object and free number, to compare before and after a refusal. */
    private String snapshot() {
        StringBuilder b = new StringBuilder();
        for (int n = 0; n < 6; n++) {
            b.append(" pd").append(n).append('=').append(fw.pdAllocated(n));
            b.append(" cq").append(n).append('=').append(fw.cqExists(n));
            b.append(" key").append(n).append('=').append(fw.keyRegistered(n << 8));
            b.append(" qp").append(n).append('=').append(fw.qpExists(n) ? fw.qpState(n) : "-");
        }
        return b.append(" free ").append(fw.freePd()).append(' ').append(fw.freeCqn()).append(' ')
                .append(fw.freeKeyIndex()).append(' ').append(fw.freeQpn()).toString();
    }

    private int refused(int expected, java.util.function.IntSupplier call, String reason) {
        String before = snapshot();
        int s = call.getAsInt();
        assertThat(statusName(s)).isEqualTo(statusName(expected));
        assertThat(fw.refusal()).startsWith("nic: ").contains(reason);
        assertThat(snapshot()).as("a refusal changes nothing").isEqualTo(before);
        return s;
    }

    private QpConfig qpConfig(int pd, int cqn, int sqLogBbs, int rqLogSize, int maxSendSge, int maxInline) {
        return new QpConfig(pd, cqn, cqn, 0x10_0000, sqLogBbs, 0x20_0000, rqLogSize, 0, mem.allocate(64, 64), maxSendSge, 1,
                maxInline, 0);
    }

    private long cq(int cqn, int logSize) {
        long db = mem.allocate(64, 64);
        assertThat(fw.tryCreateCq(cqn, 0x30_0000 + cqn * 0x1_0000L, logSize, db)).isEqualTo(STATUS_OK);
        return db;
    }

    /** Lookups remember the last QP and CQ found: never one that was destroyed, nor another's under its number. */
    @Test
    void lookupsNeverReturnADestroyedOrReplacedObject() {
        int pd = fw.allocatePd();
        cq(0, 3);
        cq(1, 3);
        Cq cq0 = fw.cq(0);
        assertThat(fw.cqOrNull(1)).isNotSameAs(cq0).isNotNull();
        assertThat(fw.cq(0)).isSameAs(cq0);
        fw.destroyCq(0);
        assertThat(fw.cqOrNull(0)).as("destroyed").isNull();
        cq(0, 3);
        assertThat(fw.cqOrNull(0)).as("a new CQ under the same number").isNotSameAs(cq0).isNotNull();
        assertThat(fw.tryCreateQp(2, qpConfig(pd, 1, 4, 2, 1, 0))).isEqualTo(STATUS_OK);
        assertThat(fw.tryCreateQp(3, qpConfig(pd, 1, 4, 2, 1, 0))).isEqualTo(STATUS_OK);
        Qp qp2 = fw.qp(2);
        assertThat(fw.qpOrNull(3)).isNotNull().isNotSameAs(qp2);
        assertThat(fw.qp(2)).isSameAs(qp2);
        assertThat(fw.qpOrNull(2)).isSameAs(qp2);
        fw.destroyQp(2);
        assertThat(fw.qpOrNull(2)).as("destroyed").isNull();
        assertThat(fw.qpExists(2)).isFalse();
        assertThat(fw.tryCreateQp(2, qpConfig(pd, 1, 4, 2, 1, 0))).isEqualTo(STATUS_OK);
        assertThat(fw.qp(2)).as("a new QP under the same number").isNotSameAs(qp2);
        assertThat(fw.qpOrNull(4)).isNull();
    }

    @Test
    void numbersAreLowestFreeSkipTheReservedOnesAndRunOut() {
        assertThat(new int[] {fw.freePd(), fw.freeCqn(), fw.freeKeyIndex(), fw.freeQpn()})
                .as("PD, key index from 1, CQN from 0, QPN from 2").containsExactly(1, 0, 1, 2);
        assertThat(fw.allocatePd()).isEqualTo(1);
        assertThat(fw.allocatePd()).isEqualTo(2);
        assertThat(fw.freePd()).as("nic.maxPds 3 with PD 0 reserved").isEqualTo(-1);
        refused(STATUS_NO_RESOURCES, () -> fw.tryAllocatePd(fw.freePd()), "every PD number is in use");
        refused(STATUS_NO_RESOURCES, () -> fw.tryAllocatePd(0), "PD number 0 outside 1..2");
        refused(STATUS_BAD_PARAM, () -> fw.tryAllocatePd(2), "PD 2 already allocated");
        fw.deallocatePd(1);
        assertThat(fw.freePd()).as("a freed number is the lowest free again").isEqualTo(1);

        cq(0, 2);
        cq(1, 2);
        cq(2, 2);
        refused(STATUS_NO_RESOURCES, () -> fw.tryCreateCq(fw.freeCqn(), 0, 2, 0), "every CQ number is in use");
        refused(STATUS_BAD_PARAM, () -> fw.tryCreateCq(1, 0, 2, 0), "CQ 1 already exists");
        assertThat(fw.tryCreateQp(2, qpConfig(2, 0, 2, 2, 1, 0))).isEqualTo(STATUS_OK);
        assertThat(fw.tryCreateQp(3, qpConfig(2, 1, 2, 2, 1, 0))).isEqualTo(STATUS_OK);
        assertThat(fw.freeQpn()).isEqualTo(-1);
        refused(STATUS_NO_RESOURCES, () -> fw.tryCreateQp(1, qpConfig(2, 0, 2, 2, 1, 0)), "QP number 1 outside 2..3");
        refused(STATUS_NO_RESOURCES, () -> fw.tryCreateQp(-1, qpConfig(2, 0, 2, 2, 1, 0)), "every QP number is in use");
        fw.destroyQp(2);
        assertThat(fw.freeQpn()).isEqualTo(2);
        assertThat(fw.qpState(3)).as("a QP starts in INIT").isEqualTo(QpState.INIT);

        assertThat(fw.tryRegisterMemory(1 << 8 | 0x11, 2, 0, 12, 0x1000, 4096, 0x8000)).isEqualTo(STATUS_OK);
        assertThat(fw.tryRegisterMemory(2 << 8 | 0x22, 2, 0, 12, 0x1000, 4096, 0x8000)).isEqualTo(STATUS_OK);
        assertThat(fw.freeKeyIndex()).isEqualTo(-1);
        refused(STATUS_NO_RESOURCES, () -> fw.tryRegisterMemory(-1, 2, 0, 12, 0x1000, 4096, 0x8000), "every key index number");
        refused(STATUS_NO_RESOURCES, () -> fw.tryRegisterMemory(0x33, 2, 0, 12, 0x1000, 4096, 0x8000), "key index number 0");
    }

    @Test
    void objectsInUseAreNotDestroyedAndMissingOnesAreNamed() {
        String empty = snapshot();
        int pd = fw.allocatePd();
        cq(0, 3);
        cq(1, 3);
        fw.createQp(2, new QpConfig(pd, 0, 1, 0x10_0000, 2, 0x20_0000, 2, 0, 0x40_0000, 1, 1, 0, 0));
        refused(STATUS_RESOURCE_BUSY, () -> fw.tryDestroyCq(0), "CQ 0 is used by QP 2");
        refused(STATUS_RESOURCE_BUSY, () -> fw.tryDestroyCq(1), "CQ 1 is used by QP 2");
        refused(STATUS_RESOURCE_BUSY, () -> fw.tryDeallocatePd(pd), "PD 1 is used by QP 2");
        refused(STATUS_BAD_RESOURCE, () -> fw.tryDestroyCq(2), "no CQ 2");
        refused(STATUS_BAD_RESOURCE, () -> fw.tryDestroyQp(3), "no QP 3");
        refused(STATUS_BAD_RESOURCE, () -> fw.tryDeallocatePd(0), "no PD 0");
        refused(STATUS_BAD_RESOURCE, () -> fw.tryModifyQp(3, QpState.ERROR, null), "no QP 3");
        refused(STATUS_BAD_RESOURCE_STATE, () -> fw.tryModifyQp(2, QpState.READY_TO_SEND, null), "cannot move from INIT");
        refused(STATUS_BAD_RESOURCE, () -> fw.tryCreateQp(3, qpConfig(pd, 2, 2, 2, 1, 0)), "names a CQ that does not exist");
        // The setup path throws with the same reason.
        assertThatThrownBy(() -> fw.destroyCq(0)).isInstanceOf(IllegalArgumentException.class).hasMessage("nic: CQ 0 is used by QP 2");

        fw.destroyQp(2);
        fw.registerMemory(1 << 8 | 7, pd, 0, 12, 0x1000, 100, 0x8000);
        refused(STATUS_RESOURCE_BUSY, () -> fw.tryDeallocatePd(pd), "PD 1 is used by key index 1");
        refused(STATUS_BAD_RESOURCE, () -> fw.tryDeregisterMemory(1 << 8 | 8), "no key 0x108");
        refused(STATUS_BAD_RESOURCE, () -> fw.tryDeregisterMemory(2 << 8 | 7), "no key 0x207");
        fw.deregisterMemory(1 << 8 | 7);
        fw.deallocatePd(pd);
        fw.destroyCq(0);
        fw.destroyCq(1);
        assertThat(snapshot()).as("every object gone once its users are").isEqualTo(empty);
    }

    @Test
    void limitsHoldAtTheirBoundaries() {
        int pd = fw.allocatePd();
        // ndk.maxCqDepth 8: a ring of 2^4 holds depth 8 (one entry unused); 2^5 would be for depth 16.
        cq(0, 4);
        refused(STATUS_BAD_PARAM, () -> fw.tryCreateCq(1, 0, 5, 0), "CQ of 2^5 entries");
        refused(STATUS_BAD_PARAM, () -> fw.tryCreateCq(1, 0, -1, 0), "CQ of 2^-1 entries");
        // ndk.maxInlineDataSize 476, 30 send SGEs, receive depth 5 (a ring of 8), a send ring of 2^15 blocks.
        assertThat(fw.tryCreateQp(2, qpConfig(pd, 0, 15, 3, 30, 476))).isEqualTo(STATUS_OK);
        refused(STATUS_BAD_PARAM, () -> fw.tryCreateQp(3, qpConfig(pd, 0, 2, 2, 1, 477)), "beyond the adapter's limits");
        refused(STATUS_BAD_PARAM, () -> fw.tryCreateQp(3, qpConfig(pd, 0, 2, 2, 31, 0)), "beyond the adapter's limits");
        refused(STATUS_BAD_PARAM, () -> fw.tryCreateQp(3, qpConfig(pd, 0, 2, 4, 1, 0)), "beyond the adapter's limits");
        // ndk.maxRegistrationSize 1 MiB; pages of 2^12..2^30; access within the flags.
        assertThat(fw.tryRegisterMemory(1 << 8, pd, 0x1f, 30, 0, 1 << 20, 0x8000)).isEqualTo(STATUS_OK);
        refused(STATUS_BAD_PARAM, () -> fw.tryRegisterMemory(2 << 8, pd, 0, 12, 0, (1 << 20) + 1, 0x8000), "out of range");
        refused(STATUS_BAD_PARAM, () -> fw.tryRegisterMemory(2 << 8, pd, 0, 12, 0, 0, 0x8000), "region of 0 B");
        refused(STATUS_BAD_PARAM, () -> fw.tryRegisterMemory(2 << 8, pd, 0, 11, 0, 10, 0x8000), "2^11 B pages");
        refused(STATUS_BAD_PARAM, () -> fw.tryRegisterMemory(2 << 8, pd, 0, 31, 0, 10, 0x8000), "2^31 B pages");
        refused(STATUS_BAD_PARAM, () -> fw.tryRegisterMemory(2 << 8, pd, 0x20, 12, 0, 10, 0x8000), "access 0x20");
        // Moderation: count 1..65535, period 0..65535 us.
        assertThat(fw.tryModerateCq(0, 65_535, 65_535_000_000L)).isEqualTo(STATUS_OK);
        assertThat(fw.cq(0).moderationCount).isEqualTo(65_535);
        refused(STATUS_BAD_PARAM, () -> fw.tryModerateCq(0, 0, 0), "moderation count");
        refused(STATUS_BAD_PARAM, () -> fw.tryModerateCq(0, 65_536, 0), "moderation count");
        refused(STATUS_BAD_PARAM, () -> fw.tryModerateCq(0, 1, 65_535_000_001L), "moderation count");
        refused(STATUS_BAD_RESOURCE, () -> fw.tryModerateCq(1, 1, 0), "no CQ 1");
        assertThat(fw.cq(0).moderationPeriodPs).as("refusals left the CQ alone").isEqualTo(65_535_000_000L);
    }

    /**
     * A resize must hold the CQEs the driver has not consumed, by the consumer index in its doorbell record (24 bits,
     * so it wraps): refused when they would not fit, allowed when they just fit; an overflowed CQ cannot be resized.
     */
    @Test
    void resizeHoldsTheUnconsumedCompletions() {
        long db = cq(0, 3);
        Cq cq = fw.cq(0);
        cq.producer = 0x100_0005L; // past a wrap of the 24-bit index
        mem.putIntBE(db + Doorbells.OFF_CQ_SET_CI, 0xFF_FFFD); // 8 unconsumed
        refused(STATUS_BAD_PARAM, () -> fw.tryResizeCq(0, 0x9000, 2), "holds 8 unconsumed CQEs, more than 2^2");
        assertThat(fw.tryResizeCq(0, 0x9000, 3)).isEqualTo(STATUS_OK);
        assertThat(new long[] {cq.ring, cq.logSize}).containsExactly(0x9000, 3);
        refused(STATUS_BAD_RESOURCE, () -> fw.tryResizeCq(1, 0x9000, 3), "no CQ 1");
        refused(STATUS_BAD_PARAM, () -> fw.tryResizeCq(0, 0xA000, 5), "CQ of 2^5 entries");
        cq.overflowed = true;
        refused(STATUS_BAD_RESOURCE_STATE, () -> fw.tryResizeCq(0, 0xA000, 4), "CQ 0 overflowed");
        assertThat(new long[] {cq.ring, cq.logSize}).as("refusals left the ring").containsExactly(0x9000, 3);
    }
}
