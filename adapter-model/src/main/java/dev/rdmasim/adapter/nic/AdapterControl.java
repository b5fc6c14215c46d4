package dev.rdmasim.adapter.nic;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.pcie.HostBridge;

/**
 * What a host's driver sees of its adapter: the root complex it writes MMIO through and takes interrupts
 * from, the port's addresses and profile, and the firmware's set-up port, i.e. the initialization segment
 * (event and command queues, QP1) and the time-zero object commands that apply a command's effect at once.
 * Everything else the driver does goes through bytes in host memory, doorbells and the command queue; the
 * blocks behind this interface stay out of its reach.
 */
public interface AdapterControl {
    /** The host end of the PCIe link: MMIO writes go here, interrupts come from here. */
    HostBridge host();

    /** The profile the adapter was built from; the driver's host costs come from it too. */
    Profile profile();

    /** The port's Ethernet MAC address (48 bits). */
    long mac();

    /** The port's IPv4 address. */
    int ip();

    /** Sets up event queue 0: a ring of 2^logSize EQEs in host memory. */
    void createEq(long ring, int logSize);

    /** Sets up the firmware command queue: a ring of 2^logSize 64-byte entries in host memory. */
    void createCommandQueue(long ring, int logSize);

    /** QP1, the general services interface, set up on the first call. */
    GsiUnit gsi();

    /** Lowest free CQ number, or -1 when none is left. */
    int freeCqn();

    /** Creates CQ {@code cqn} on a ring of 2^logSize CQEs and a doorbell record the driver allocated. */
    void createCq(int cqn, long ring, int logSize, long dbRecord);

    /** Lowest free data QP number, or -1 when none is left. */
    int freeQpn();

    /** Creates QP {@code qpn} in INIT. */
    void createQp(int qpn, QpConfig cfg);

    /** Connects a QP to its peer and moves it to ready-to-send. */
    void connectQp(int qpn, int remoteQpn, long peerMac, int peerIp, int sendPsn, int expectedPsn);

    QpState qpState(int qpn);

    /** Lowest free memory key index, or -1 when none is left. */
    int freeKeyIndex();

    /** Registers a memory region: key context plus the translation table the driver filled. */
    void registerMemory(int key, int pd, int access, int logPageSize, long va, long length, long mttAddr);

    /** Allocates the lowest free protection domain; returns it. */
    int allocatePd();
}
