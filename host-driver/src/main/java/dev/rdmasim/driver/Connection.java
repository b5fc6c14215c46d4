package dev.rdmasim.driver;

import dev.rdmasim.adapter.wire.CmMad;
import dev.rdmasim.kernel.Event;
import java.util.Arrays;

/**
 * One connection as a host's {@link CmAgent} tracks it: either end, from the REQ to the end of its time-wait.
 * The application reads it (state, peer, negotiated read limits, the peer's private data) and hands it back
 * to the agent to accept, reject, complete or disconnect it.
 */
public final class Connection {
    /** Protocol states (IBA 12.9.6, reduced to the RC paths this model runs). */
    public enum State {
        /** Active: REQ sent, waiting for REP or REJ. */
        REQ_SENT,
        /** Active: REP received, QP ready to send; waiting for the application to complete (RTU). */
        REP_RECEIVED,
        /** Passive: REQ received, waiting for the application to accept or reject. */
        REQ_RECEIVED,
        /** Passive: REP sent, QP ready to receive; waiting for RTU. */
        REP_SENT,
        ESTABLISHED,
        /** DREQ sent, QP in error; waiting for DREP. */
        DREQ_SENT,
        /** Disconnected; kept for a time-wait to answer a repeated DREQ. */
        CLOSED,
        /** Rejected, refused or timed out before being established. */
        FAILED
    }

    /** Why a connection failed to establish. */
    public enum Outcome {
        /** The peer's application rejected it (REJ, consumer defined). */
        REJECTED,
        /** Nothing listens on the service ID at the peer (REJ, invalid service ID). */
        NO_LISTENER,
        /** No answer after every retry (or the peer timed out and said so). */
        TIMED_OUT
    }

    /** What the agent tells the application about a connection; every method runs inside the simulation. */
    public interface Events {
        /** Active side: the REP arrived and the QP is ready to send; call {@link CmAgent#completeConnect} to send the RTU. */
        default void replied(Connection c) {
            c.agent().completeConnect(c);
        }

        /** The connection is established (active: RTU sent; passive: RTU received). */
        default void established(Connection c) {
        }

        /** It will not be established; the peer's REJ private data, if any, is in {@link #peerPrivateData()}. */
        default void failed(Connection c, Outcome why) {
        }

        /** The peer disconnected (a DREQ arrived); told once. The QP is in error, its work flushed. */
        default void disconnected(Connection c) {
        }

        /** A local {@link CmAgent#disconnect} finished: the DREP arrived, or the DREQ ran out of retries. */
        default void disconnectCompleted(Connection c) {
        }
    }

    final CmAgent agent;
    final boolean active;
    final int localCommId;
    int remoteCommId;
    State state;
    final long serviceId;
    QueuePair qp;
    Events events;
    final int peerIp;
    final long peerMac;
    int peerQpn;
    int localPsn;
    int peerPsn;
    /** What the peer asked for: its responder resources (IRD) and initiator depth (ORD). */
    int peerResponderResources;
    int peerInitiatorDepth;
    int inboundReadLimit;
    int outboundReadLimit;
    long transactionId;
    /** The last message this side sent that it may have to send again, encoded. */
    final byte[] lastSent = new byte[CmMad.SIZE];
    final byte[] peerPrivateData = new byte[CmMad.RTU_PRIVATE_DATA_SIZE];
    int peerPrivateDataLength;
    int rejectReason;
    /** The peer's response timeout exponent and retries, as its REQ gave them (passive side). */
    int peerResponseTimeout;
    int peerMaxRetries;
    /** The retry counts the peer asked this side to use (REQ: both; REP: RNR only; -1 = the adapter's). */
    int peerRetryCount = -1;
    int peerRnrRetry = -1;
    /** A firmware command moving the QP is under way: messages that would move it again wait or are duplicates. */
    boolean modifying;
    /** The QP was sent to the error state. */
    boolean qpErrored;
    int retriesLeft;
    long timeoutPs;
    boolean peerDisconnectTold;
    final Event timer;

    Connection(CmAgent agent, boolean active, int localCommId, long serviceId, int peerIp, long peerMac) {
        this.agent = agent;
        this.active = active;
        this.localCommId = localCommId;
        this.serviceId = serviceId;
        this.peerIp = peerIp;
        this.peerMac = peerMac;
        this.timer = agent.sim().event(agent.fullName() + ".conn" + Integer.toHexString(localCommId), () -> agent.timerFired(this));
    }

    public CmAgent agent() {
        return agent;
    }

    public State state() {
        return state;
    }

    /** True on the side that sent the REQ. */
    public boolean isActive() {
        return active;
    }

    public int localCommId() {
        return localCommId;
    }

    public int remoteCommId() {
        return remoteCommId;
    }

    public long serviceId() {
        return serviceId;
    }

    /** The local QP, or null on the passive side before it accepts. */
    public QueuePair qp() {
        return qp;
    }

    public int peerIp() {
        return peerIp;
    }

    public long peerMac() {
        return peerMac;
    }

    /** The peer's QP number, known from its REQ or REP. */
    public int peerQpn() {
        return peerQpn;
    }

    /** RDMA READs this side accepts at once as responder, as negotiated (0 before it is known). */
    public int inboundReadLimit() {
        return inboundReadLimit;
    }

    /** RDMA READs this side may have outstanding as requester, as negotiated. */
    public int outboundReadLimit() {
        return outboundReadLimit;
    }

    /** What the peer asked for in its REQ or REP: its inbound (responder resources) and outbound (initiator depth) limits. */
    public int peerInboundReadLimit() {
        return peerResponderResources;
    }

    public int peerOutboundReadLimit() {
        return peerInitiatorDepth;
    }

    /**
     * The private data of the peer's last REQ, REP or REJ: the whole field of that message (the wire carries no
     * length, so what the peer left unused reads as zeros).
     */
    public byte[] peerPrivateData() {
        return Arrays.copyOf(peerPrivateData, peerPrivateDataLength);
    }

    /** The reason of the REJ that failed it, 0 otherwise (see {@code CmMad.REJ_*}). */
    public int rejectReason() {
        return rejectReason;
    }

    void takePrivateData(CmMad m) {
        peerPrivateDataLength = m.privateDataLength;
        System.arraycopy(m.privateData, 0, peerPrivateData, 0, m.privateDataLength);
    }

    @Override
    public String toString() {
        return (active ? "active" : "passive") + " connection 0x" + Integer.toHexString(localCommId) + " " + state;
    }
}
