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
}
