package dev.rdmasim.adapter.nic;

import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;

/**
 * Event queue 0 and its MSI-X vector: the one block that writes event-queue entries and interrupt messages. A
 * block that raises an event (the CQE writer for completion and CQ-error events, the command unit for command
 * completions, QP1 for a received MAD) hands it the DMA port its own data went out on, so the EQE and then the
 * MSI-X message queue behind that data and PCIe ordering keeps the interrupt behind everything it announces. The
 * unit owns the ring's producer index and owner bit, the EQE layouts and the MSI-X address and data word.
 *
 * <p>Each event in flight holds one of a few request pairs until its MSI-X message has left the device; raising
 * more events at once than there are pairs is an invariant violation (every raiser bounds its own events).
 */
final class EventQueueUnit extends Module {
    /** Told when an event's writes have left the device. */
    interface Listener {
        /** The EQE ({@code interrupt} false) or then the MSI-X message ({@code interrupt} true) has left. */
        void eventSent(boolean interrupt);
    }

    /** The data word of the adapter's one MSI-X vector (vector 0). */
    static final int MSIX_DATA = 0;
    /** No ready time: the event leaves as soon as its port's turn comes. */
    static final long NOW = -1;
    private static final Listener NOBODY = interrupt -> { };

    /** An EQE and its interrupt message, with their buffers; reused once the message has left. */
    private static final class Pair implements DmaCallback {
        final DmaRequest eqe = new DmaRequest();
        final DmaRequest msi = new DmaRequest();
        final byte[] eqeBuf = new byte[Eqe.SIZE];
        final byte[] msiBuf = new byte[4];
        Listener listener = NOBODY;

        boolean busy() {
            return eqe.inEngine() || msi.inEngine();
        }

        @Override
        public void writeSent(DmaRequest r) {
            listener.eventSent(r == msi);
        }
    }

    private final long msixAddress;
    private final Pair[] pairs;
    private int next;
    private long ring;
    private int logSize;
    private long producer;
    private final Counter events;
    private final Counter interrupts;

    EventQueueUnit(Module parent, long msixAddress, int maxInFlight) {
        super(parent, "eq");
        this.msixAddress = msixAddress;
        pairs = new Pair[maxInFlight];
        for (int i = 0; i < maxInFlight; i++) {
            pairs[i] = new Pair();
        }
        events = stats().counter("events", "EQEs", "event queue entries written (completion, CQ error, command, QP1 receive)");
        interrupts = stats().counter("interrupts", "messages", "MSI-X messages sent");
    }

    /** Sets up the ring the driver allocated: 2^logSize entries; the producer index starts at zero. */
    void create(long ringAddress, int ringLogSize) {
        ring = ringAddress;
        logSize = ringLogSize;
        producer = 0;
    }

    /** A completion event for CQ {@code cqn}. */
    void completion(DmaPort port, int cqn, Listener listener) {
        Pair p = claim();
        Eqe.writeCompletion(p.eqeBuf, 0, cqn, ownerBit());
        raise(p, port, NOW, listener);
    }

    /** A CQ-error event (overrun) for CQ {@code cqn}. */
    void cqError(DmaPort port, int cqn, Listener listener) {
        Pair p = claim();
        Eqe.writeCqError(p.eqeBuf, 0, cqn, Eqe.CQ_ERROR_OVERRUN, ownerBit());
        raise(p, port, NOW, listener);
    }

    /** A command-completion event for command entry {@code index} with the driver's {@code token}. */
    void command(DmaPort port, int index, int token, Listener listener) {
        Pair p = claim();
        Eqe.writeCommand(p.eqeBuf, 0, index, token, ownerBit());
        raise(p, port, NOW, listener);
    }

    /** A QP event of {@code type} for {@code qpn}, not to leave before {@code notBeforePs}. */
    void qpEvent(DmaPort port, int type, int qpn, long notBeforePs, Listener listener) {
        Pair p = claim();
        Eqe.writeQpEvent(p.eqeBuf, 0, type, qpn, ownerBit());
        raise(p, port, notBeforePs, listener);
    }

    /** Owner bit of the next entry: flips on every pass over the ring. */
    private int ownerBit() {
        return (int) (producer >>> logSize) & 1;
    }

    private Pair claim() {
        for (int k = 0; k < pairs.length; k++) {
            Pair p = pairs[next];
            next = next + 1 == pairs.length ? 0 : next + 1;
            if (!p.busy()) {
                return p;
            }
        }
        throw new InvariantViolation(fullName() + ": more than " + pairs.length + " events in flight");
    }

    private void raise(Pair p, DmaPort port, long notBeforePs, Listener listener) {
        if (ring == 0) {
            throw new InvariantViolation(fullName() + ": an event was raised before the driver created the event queue");
        }
        long address = ring + (producer & ((1L << logSize) - 1)) * Eqe.SIZE;
        producer++;
        p.listener = listener;
        p.eqe.write(address, p.eqeBuf, 0, Eqe.SIZE, p, 0, false);
        BigEndian.putI32(p.msiBuf, 0, MSIX_DATA);
        p.msi.write(msixAddress, p.msiBuf, 0, 4, p, 0, false);
        if (notBeforePs != NOW) {
            p.eqe.notBefore(notBeforePs);
            p.msi.notBefore(notBeforePs);
        }
        events.inc();
        interrupts.inc();
        port.send(p.eqe);
        port.send(p.msi);
    }

    /** Entries written so far (the running producer index). */
    long producer() {
        return producer;
    }
}
