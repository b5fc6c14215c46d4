package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PcieConfigTest {
    private static final PcieConfig D = PcieConfig.defaults();

    @Test
    void specDllpLimitsComeFromTheTable() {
        assertThat(D.withMps(128).effectiveAckLimit()).isEqualTo(163);
        assertThat(D.withMps(256).effectiveAckLimit()).isEqualTo(203);
        assertThat(D.withMps(512).effectiveAckLimit()).isEqualTo(182);
        assertThat(D.withLink(3, 16).effectiveAckLimit()).isEqualTo(168);
        assertThat(D.withLink(5, 16).effectiveFcUpdateLimit()).isEqualTo(168);
        assertThat(D.withLink(1, 1).withMps(128).effectiveAckLimit()).isEqualTo(237);
        assertThat(D.withLink(2, 4).withMps(4096).effectiveAckLimit()).isEqualTo(1101);
        assertThat(D.withLink(1, 32).withMps(2048).effectiveFcUpdateLimit()).isEqualTo(248);
        assertThat(D.withLink(1, 32).withMps(2048).effectiveAckLimit()).isEqualTo(148);
        assertThat(D.withDllpLimits(300, 400).effectiveAckLimit()).isEqualTo(300);
        assertThat(D.withDllpLimits(300, 400).effectiveFcUpdateLimit()).isEqualTo(400);
    }

    @Test
    void headerConventionIsPcieBenchs() {
        assertThat(D.requestOverheadBytes()).isEqualTo(24);
        assertThat(D.completionOverheadBytes()).isEqualTo(20);
        assertThat(D.withHeaders(false, false).requestOverheadBytes()).isEqualTo(20);
        assertThat(D.withHeaders(true, true).requestOverheadBytes()).isEqualTo(28);
        assertThat(D.withHeaders(true, true).completionOverheadBytes()).isEqualTo(24);
    }

    @Test
    void msixWindow() {
        long a = D.msixAddress(5);
        assertThat(a).isEqualTo(D.msixBase() + 20);
        assertThat(D.isMsix(a)).isTrue();
        assertThat(D.isMsix(D.msixBase() - 1)).isFalse();
        assertThat(D.isMsix(D.msixBase() + D.msixSize())).isFalse();
        assertThat(D.withMsix(0, 0).isMsix(0)).isFalse();
        assertThatThrownBy(() -> D.msixAddress(-1)).hasMessageContaining("vector");
    }

    @Test
    void impossibleParametersAreRejectedByName() {
        assertThatThrownBy(() -> D.withLink(6, 8)).hasMessageContaining("pcie.gen");
        assertThatThrownBy(() -> D.withLink(3, 12)).hasMessageContaining("pcie.lanes");
        assertThatThrownBy(() -> D.withMps(100)).hasMessageContaining("pcie.mps");
        assertThatThrownBy(() -> D.withMps(8192)).hasMessageContaining("pcie.mps");
        assertThatThrownBy(() -> D.withMrrs(64)).hasMessageContaining("pcie.mrrs");
        assertThatThrownBy(() -> D.withRcb(32, false)).hasMessageContaining("pcie.rcb");
        assertThatThrownBy(() -> D.withReadTags(0)).hasMessageContaining("pcie.readTags");
        assertThatThrownBy(() -> D.withReadTags(769)).hasMessageContaining("pcie.readTags");
        assertThatThrownBy(() -> D.withLatencies(-1, 0)).hasMessageContaining("pcie.hostReadLatencyPs");
        assertThatThrownBy(() -> D.withLatencies(0, -1)).hasMessageContaining("pcie.linkLatencyPs");
        assertThatThrownBy(() -> D.withDllpLimits(10, 0)).hasMessageContaining("pcie.ackLimit");
        assertThatThrownBy(() -> D.withDllpLimits(0, 23)).hasMessageContaining("pcie.fcUpdateLimit");
        assertThatThrownBy(() -> D.withQueues(0, 1)).hasMessageContaining("pcie.deviceTxDepth");
        assertThatThrownBy(() -> D.withQueues(1, 0)).hasMessageContaining("pcie.mmioQueueDepth");
        assertThatThrownBy(() -> D.withMsix(-16, 32)).hasMessageContaining("pcie.msixSize");
    }

    @Test
    void theTwoLargeMpsX32FcUpdateExceptionsDifferFromTheAckTable() {
        assertThat(D.withLink(2, 32).withMps(4096).effectiveFcUpdateLimit()).isEqualTo(327);
        assertThat(D.withLink(2, 32).withMps(4096).effectiveAckLimit()).isEqualTo(237);
        // Neighbours of the exceptions follow the Ack table.
        assertThat(D.withLink(2, 32).withMps(2048).effectiveFcUpdateLimit()).isEqualTo(199);
        assertThat(D.withLink(2, 16).withMps(4096).effectiveFcUpdateLimit()).isEqualTo(585);
        assertThat(D.withLink(1, 32).withMps(4096).effectiveFcUpdateLimit()).isEqualTo(276);
    }

    @Test
    void msixVectorsFillTheWindowExactly() {
        PcieConfig c = D.withMsix(0x1000, 16);
        assertThat(c.msixAddress(0)).isEqualTo(0x1000);
        assertThat(c.msixAddress(3)).isEqualTo(0x100C);
        assertThatThrownBy(() -> c.msixAddress(4)).hasMessageContaining("vector 4");
        assertThat(c.isMsix(0x1000)).isTrue();
        assertThat(c.isMsix(0x100F)).isTrue();
        assertThat(c.isMsix(0x1010)).isFalse();
        assertThat(c.isMsix(0x0FFF)).isFalse();
    }

    @Test
    void limitsAreInclusive() {
        assertThat(D.withReadTags(1).readTags()).isEqualTo(1);
        assertThat(D.withReadTags(768).readTags()).isEqualTo(768);
        assertThat(D.withDllpLimits(24, 24).effectiveAckLimit()).isEqualTo(24);
        assertThat(D.withDllpLimits(24, 24).effectiveFcUpdateLimit()).isEqualTo(24);
        assertThat(D.withMps(128).withMrrs(4096).mrrs()).isEqualTo(4096);
        assertThat(D.withHostWriteLatency(0).withMmioLatency(0).withLatencies(0, 0).linkLatencyPs()).isZero();
        // A window may end at the top of the address space, and an empty one may sit anywhere.
        assertThat(D.withMsix(-16, 16).isMsix(-1)).isTrue();
        assertThat(D.withMsix(-16, 16).isMsix(-17)).isFalse();
        assertThat(D.withMsix(0x1000, 0).isMsix(0x1000)).isFalse();
        assertThat(D.withMsix(0x1000, 1).isMsix(0x1000)).isTrue();
    }

    @Test
    void moreImpossibleParametersAreRejectedByName() {
        assertThatThrownBy(() -> D.withMps(384)).hasMessageContaining("pcie.mps");
        assertThatThrownBy(() -> D.withMrrs(3072)).hasMessageContaining("pcie.mrrs");
        assertThatThrownBy(() -> D.withHostWriteLatency(-1)).hasMessageContaining("pcie.hostWriteLatencyPs");
        assertThatThrownBy(() -> D.withMmioLatency(-1)).hasMessageContaining("pcie.mmioLatencyPs");
        assertThatThrownBy(() -> D.withMsix(0x1000, -4)).hasMessageContaining("pcie.msixSize");
        assertThatThrownBy(() -> D.withMsix(-16, 17)).hasMessageContaining("pcie.msixSize");
    }
}
