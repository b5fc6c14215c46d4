package dev.rdmasim.driver;

/** A reliable-connected QP as the driver sees it: its number, send and receive queues. */
public final class QueuePair {
    private final HostDriver driver;
    private final int qpn;
    private final SendQueue sq;
    private final ReceiveQueue rq;

    QueuePair(HostDriver driver, int qpn, SendQueue sq, ReceiveQueue rq) {
        this.driver = driver;
        this.qpn = qpn;
        this.sq = sq;
        this.rq = rq;
    }

    public int qpn() {
        return qpn;
    }

    public SendQueue sq() {
        return sq;
    }

    public ReceiveQueue rq() {
        return rq;
    }

    /** The host core this QP posts on. */
    public HostCpu core() {
        return sq.core();
    }

    public HostDriver driver() {
        return driver;
    }

    /**
     * Connects this QP and {@code peer} (on another driver) to each other: both go INIT -> RTR -> RTS
     * with start PSNs drawn from each driver's seeded stream.
     */
    public void connect(QueuePair peer) {
        int psnHere = driver.random().nextInt(1 << 24);
        int psnThere = peer.driver.random().nextInt(1 << 24);
        driver.nic().connectQp(qpn, peer.qpn, peer.driver.mac(), peer.driver.ip(), psnHere, psnThere);
        peer.driver.nic().connectQp(peer.qpn, qpn, driver.mac(), driver.ip(), psnThere, psnHere);
    }
}
