package dev.rdmasim.adapter.transport;

import static dev.rdmasim.adapter.transport.Position.FIRST;
import static dev.rdmasim.adapter.transport.Position.LAST;
import static dev.rdmasim.adapter.transport.Position.MIDDLE;
import static dev.rdmasim.adapter.transport.Position.ONLY;
import static dev.rdmasim.adapter.transport.RequestKind.READ;
import static dev.rdmasim.adapter.transport.RequestKind.SEND;
import static dev.rdmasim.adapter.transport.RequestKind.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ResponderStateTest {
    static final int MTU = 1024;

    @Test
    void psnArithmeticWraps() {
        assertThat(Psn.add(Psn.MASK, 1)).isZero();
        assertThat(Psn.diff(0, Psn.MASK)).isEqualTo(1);
        assertThat(Psn.before(Psn.MASK, 0)).isTrue();
        assertThat(Psn.afterOrAt(5, 5)).isTrue();
        assertThat(Psn.diff(0x800000, 0)).isEqualTo(-0x800000);
    }

    @Test
    void inOrderMultiPacketWriteExecutesAndCountsOneMessage() {
        ResponderState r = new ResponderState(Psn.MASK - 1, true, true);
        int psn = Psn.MASK - 1;
        Position[] seq = {FIRST, MIDDLE, MIDDLE, LAST};
        for (Position p : seq) {
            int len = p == LAST ? 10 : MTU;
            assertThat(r.check(psn, WRITE, p, len, MTU)).isEqualTo(Verdict.EXECUTE);
            r.accept(WRITE, p, 1);
            psn = Psn.add(psn, 1);
        }
        assertThat(r.expectedPsn()).isEqualTo(2);
        assertThat(r.msn()).isEqualTo(1);
        assertThat(r.openMessage()).isNull();
    }

    @Test
    void checksRunInOrderPsnFirst() {
        ResponderState r = new ResponderState(100, false, false);
        // Bad opcode sequence and no write access, but the PSN check wins.
        assertThat(r.check(99, WRITE, MIDDLE, 1, MTU)).isEqualTo(Verdict.DUPLICATE);
        assertThat(r.check(101, WRITE, MIDDLE, 1, MTU)).isEqualTo(Verdict.SEQUENCE_NAK);
        r.nakSent();
        assertThat(r.check(102, SEND, ONLY, 1, MTU)).isEqualTo(Verdict.DROP);
        // At the expected PSN: sequence check, then access check.
        assertThat(r.check(100, SEND, MIDDLE, MTU, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(100, WRITE, ONLY, 8, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(100, READ, ONLY, 0, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(100, SEND, ONLY, 8, MTU)).isEqualTo(Verdict.EXECUTE);
        r.accept(SEND, ONLY, 1);
        assertThat(r.nakOutstanding()).isFalse();
    }

    @Test
    void openMessageAcceptsOnlyItsOwnContinuation() {
        ResponderState r = new ResponderState(0, true, true);
        assertThat(r.check(0, SEND, FIRST, MTU, MTU)).isEqualTo(Verdict.EXECUTE);
        r.accept(SEND, FIRST, 1);
        assertThat(r.check(1, WRITE, MIDDLE, MTU, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(1, SEND, FIRST, MTU, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(1, SEND, ONLY, 5, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(1, SEND, LAST, 5, MTU)).isEqualTo(Verdict.EXECUTE);
    }

    @Test
    void lengthRulesPerPosition() {
        ResponderState r = new ResponderState(0, true, true);
        assertThat(r.check(0, WRITE, ONLY, MTU + 1, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(0, WRITE, ONLY, 0, MTU)).isEqualTo(Verdict.EXECUTE);
        assertThat(r.check(0, WRITE, FIRST, MTU - 1, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        r.accept(WRITE, FIRST, 1);
        assertThat(r.check(1, WRITE, LAST, 0, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(1, WRITE, MIDDLE, MTU, MTU)).isEqualTo(Verdict.EXECUTE);
    }

    @Test
    void readAdvancesExpectedPsnByItsResponsePackets() {
        ResponderState r = new ResponderState(10, true, true);
        assertThat(r.check(10, READ, ONLY, 0, MTU)).isEqualTo(Verdict.EXECUTE);
        r.accept(READ, ONLY, 4);
        assertThat(r.expectedPsn()).isEqualTo(14);
        assertThat(r.check(12, READ, ONLY, 0, MTU)).isEqualTo(Verdict.DUPLICATE);
    }

    @Test
    void psnComparisonsAtEqualityAndTheTwentyFourBitCheck() {
        assertThat(Psn.before(5, 5)).isFalse();
        assertThat(Psn.before(6, 5)).isFalse();
        assertThat(Psn.before(4, 5)).isTrue();
        assertThat(Psn.afterOrAt(4, 5)).isFalse();
        assertThat(Psn.afterOrAt(0, Psn.MASK)).isTrue();
        assertThat(Psn.checked(Psn.MASK)).isEqualTo(Psn.MASK);
        assertThatThrownBy(() -> Psn.checked(Psn.MASK + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("24 bits");
        assertThatThrownBy(() -> Psn.checked(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void positionsOpenAndCloseMessages() {
        assertThat(FIRST.opensMessage()).isTrue();
        assertThat(ONLY.opensMessage()).isTrue();
        assertThat(MIDDLE.opensMessage()).isFalse();
        assertThat(LAST.opensMessage()).isFalse();
        assertThat(LAST.closesMessage()).isTrue();
        assertThat(ONLY.closesMessage()).isTrue();
        assertThat(FIRST.closesMessage()).isFalse();
        assertThat(MIDDLE.closesMessage()).isFalse();
    }

    @Test
    void lengthsExactlyAtTheLimitsExecute() {
        ResponderState r = new ResponderState(0, true, true);
        assertThat(r.check(0, SEND, ONLY, MTU, MTU)).isEqualTo(Verdict.EXECUTE);
        r.accept(WRITE, FIRST, 1);
        assertThat(r.openMessage()).isEqualTo(WRITE);
        assertThat(r.check(1, WRITE, LAST, 1, MTU)).isEqualTo(Verdict.EXECUTE);
        assertThat(r.check(1, WRITE, LAST, MTU, MTU)).isEqualTo(Verdict.EXECUTE);
        assertThat(r.check(1, WRITE, LAST, MTU + 1, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(1, WRITE, MIDDLE, MTU + 1, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
    }

    @Test
    void aReadRequestIsOnlyAndCarriesNoPayload() {
        ResponderState r = new ResponderState(0, true, true);
        assertThat(r.check(0, READ, ONLY, 8, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(0, READ, FIRST, MTU, MTU)).isEqualTo(Verdict.INVALID_REQUEST);
        assertThat(r.check(0, READ, ONLY, 0, MTU)).isEqualTo(Verdict.EXECUTE);
    }

    @Test
    void aSequenceNakIsOutstandingUntilTheExpectedPacketIsAccepted() {
        ResponderState r = new ResponderState(0, true, true);
        assertThat(r.nakOutstanding()).isFalse();
        assertThat(r.check(3, SEND, ONLY, 8, MTU)).isEqualTo(Verdict.SEQUENCE_NAK);
        r.nakSent();
        assertThat(r.nakOutstanding()).isTrue();
        assertThat(r.check(3, SEND, ONLY, 8, MTU)).isEqualTo(Verdict.DROP);
        r.accept(SEND, ONLY, 1);
        assertThat(r.nakOutstanding()).isFalse();
        assertThat(r.check(3, SEND, ONLY, 8, MTU)).isEqualTo(Verdict.SEQUENCE_NAK);
        r.reset(7, false, false);
        assertThat(r.expectedPsn()).isEqualTo(7);
        assertThat(r.msn()).isZero();
    }
}
