package dev.rdmasim.adapter.pcie;

/**
 * Parameters of one adapter's PCIe attachment. Sizes in bytes, times in picoseconds.
 *
 * @param gen               PCIe generation 1..5 (2.5, 5, 8, 16, 32 GT/s per lane)
 * @param lanes             link width: 1, 2, 4, 8, 16 or 32
 * @param mps               Max Payload Size: 128..4096, a power of two
 * @param mrrs              Max Read Request Size: 128..4096, a power of two
 * @param rcb               Read Completion Boundary of the root complex: 64 or 128
 * @param rcbChunks         true: the root complex cuts completions at every RCB boundary; false: up to MPS
 * @param addr64            true: requests carry 64-bit addresses (4 DW header), false: 32-bit (3 DW)
 * @param ecrc              true: every TLP carries a 4 B end-to-end CRC digest
 * @param readTags          tags of the device: at most this many read requests outstanding, 1..768
 * @param hostReadLatencyPs time the root complex and memory take from a read request's arrival to its data
 * @param hostWriteLatencyPs time the root complex and memory take to commit a posted write after it arrives, before
 *                          the CPU can see it (writes commit in arrival order; a device read pushes earlier writes)
 * @param mmioLatencyPs     time a CPU MMIO store takes through the uncore to the root port before its TLP can leave
 * @param linkLatencyPs     one-way PHY + data-link pipeline latency, added after a TLP's last byte is serialized
 * @param ackLimit          TLP-stream bytes between Ack DLLPs; 0 = the spec's recommended value for gen/lanes/MPS
 * @param fcUpdateLimit     bytes between flow-control update DLLPs; 0 = the spec's recommended value
 * @param deviceTxDepth     TLPs of each class (posted, non-posted) the device may queue for transmission
 * @param mmioQueueDepth    host-side MMIO posted writes that may wait for the downstream link
 * @param msixBase          first host address of the MSI-X window; vector v is written at msixBase + 4 v
 * @param msixSize          size of the MSI-X window in bytes; 0 = no interrupt window
 */
public record PcieConfig(int gen, int lanes, int mps, int mrrs, int rcb, boolean rcbChunks, boolean addr64,
                         boolean ecrc, int readTags, long hostReadLatencyPs, long hostWriteLatencyPs, long mmioLatencyPs,
                         long linkLatencyPs,
                         int ackLimit,
                         int fcUpdateLimit, int deviceTxDepth, int mmioQueueDepth, long msixBase, long msixSize) {

    /** Bytes of framing (STP/END), sequence number and LCRC around every TLP. */
    public static final int FRAMING_BYTES = 8;
    /** Header DW0 (type, length, attributes). */
    public static final int HEADER_DW0_BYTES = 4;
    /** Ack and flow-control update DLLPs on the wire, framing included. */
    public static final int DLLP_BYTES = 8;
    /** A SKIP ordered set every {@link #SKIP_INTERVAL_BYTES} bytes costs this many bytes. */
    public static final int SKIP_BYTES = 4;
    public static final int SKIP_INTERVAL_BYTES = 1538;
    /** TLPs never cross a 4 KiB boundary of host memory. */
    public static final int PAGE_BOUNDARY = 4096;

    private static final int[] LANES = {1, 2, 4, 8, 16, 32};

    // Recommended Ack latency limits in bytes (PCIe Base Spec 5.0 tables 3-7..3-9, as used by pcie-bench),
    // by generation (gen3 values hold for gen4 and gen5), then lanes x1..x32, then MPS 128..4096.
    private static final int[][][] ACK = {
        { // gen1
            {237, 416, 559, 1071, 2095, 4143}, {128, 217, 289, 545, 1057, 2081}, {73, 118, 154, 282, 538, 1050},
            {67, 107, 86, 150, 278, 534}, {48, 72, 86, 150, 278, 534}, {33, 45, 52, 84, 148, 276}},
        { // gen2
            {288, 467, 610, 1122, 2146, 4194}, {179, 268, 340, 596, 1108, 2132}, {124, 169, 205, 333, 589, 1101},
            {118, 158, 137, 201, 329, 585}, {99, 123, 137, 201, 329, 585}, {84, 96, 103, 135, 199, 237}},
        { // gen3..5
            {333, 512, 655, 1167, 2191, 4239}, {224, 313, 385, 641, 1153, 2177}, {169, 214, 250, 378, 634, 1146},
            {163, 203, 182, 246, 374, 630}, {144, 168, 182, 246, 374, 630}, {129, 141, 148, 180, 244, 372}},
    };

    public PcieConfig {
        if (gen < 1 || gen > 5) {
            throw new IllegalArgumentException("pcie.gen must be 1..5, got " + gen);
        }
        if (laneIndex(lanes) < 0) {
            throw new IllegalArgumentException("pcie.lanes must be one of 1, 2, 4, 8, 16, 32, got " + lanes);
        }
        checkPow2("mps", mps);
        checkPow2("mrrs", mrrs);
        if (rcb != 64 && rcb != 128) {
            throw new IllegalArgumentException("pcie.rcb must be 64 or 128, got " + rcb);
        }
        if (readTags < 1 || readTags > 768) {
            throw new IllegalArgumentException("pcie.readTags must be 1..768 (10-bit tags), got " + readTags);
        }
        if (hostReadLatencyPs < 0) {
            throw new IllegalArgumentException("pcie.hostReadLatencyPs must be >= 0, got " + hostReadLatencyPs);
        }
        if (hostWriteLatencyPs < 0) {
            throw new IllegalArgumentException("pcie.hostWriteLatencyPs must be >= 0, got " + hostWriteLatencyPs);
        }
        if (mmioLatencyPs < 0) {
            throw new IllegalArgumentException("pcie.mmioLatencyPs must be >= 0, got " + mmioLatencyPs);
        }
        if (linkLatencyPs < 0) {
            throw new IllegalArgumentException("pcie.linkLatencyPs must be >= 0, got " + linkLatencyPs);
        }
        checkLimit("ackLimit", ackLimit);
        checkLimit("fcUpdateLimit", fcUpdateLimit);
        if (deviceTxDepth < 1) {
            throw new IllegalArgumentException("pcie.deviceTxDepth must be >= 1, got " + deviceTxDepth);
        }
        if (mmioQueueDepth < 1) {
            throw new IllegalArgumentException("pcie.mmioQueueDepth must be >= 1, got " + mmioQueueDepth);
        }
        if (msixSize < 0 || (msixSize > 0 && Long.compareUnsigned(msixBase + msixSize - 1, msixBase) < 0)) {
            throw new IllegalArgumentException("pcie.msixSize must be >= 0 and the window [msixBase, msixBase + msixSize)"
                    + " must not wrap, got base 0x" + Long.toHexString(msixBase) + " size " + msixSize);
        }
    }

    private static void checkPow2(String what, int v) {
        if (v < 128 || v > 4096 || Integer.bitCount(v) != 1) {
            throw new IllegalArgumentException("pcie." + what + " must be a power of two in 128..4096, got " + v);
        }
    }

    private static void checkLimit(String what, int v) {
        // Below 24 B the DLLPs alone would take two thirds of the link.
        if (v != 0 && v < 24) {
            throw new IllegalArgumentException("pcie." + what + " must be 0 (spec default) or >= 24 bytes, got " + v);
        }
    }

    private static int laneIndex(int lanes) {
        for (int i = 0; i < LANES.length; i++) {
            if (LANES[i] == lanes) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Gen3 x8, MPS 256, MRRS 512, RCB 64 (completions at MPS), 64-bit addresses, no ECRC, 256 tags, spec DLLP
     * rates; latencies calibrated so a 64 B read takes about 575 ns (pcie-bench, Xeon E5, warm cache); MSI-X window
     * at 0xFEE00000 (x86 interrupt range).
     */
    public static PcieConfig defaults() {
        return new PcieConfig(3, 8, 256, 512, 64, false, true, false, 256, 400_000, 0, 0, 80_000, 0, 0, 8, 16,
                0xFEE0_0000L, 0x10_0000L);
    }

    public PcieConfig withLink(int newGen, int newLanes) {
        return new PcieConfig(newGen, newLanes, mps, mrrs, rcb, rcbChunks, addr64, ecrc, readTags, hostReadLatencyPs,
                hostWriteLatencyPs, mmioLatencyPs, linkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth, msixBase, msixSize);
    }

    public PcieConfig withMps(int newMps) {
        return new PcieConfig(gen, lanes, newMps, mrrs, rcb, rcbChunks, addr64, ecrc, readTags, hostReadLatencyPs,
                hostWriteLatencyPs, mmioLatencyPs, linkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth, msixBase, msixSize);
    }

    public PcieConfig withMrrs(int newMrrs) {
        return new PcieConfig(gen, lanes, mps, newMrrs, rcb, rcbChunks, addr64, ecrc, readTags, hostReadLatencyPs,
                hostWriteLatencyPs, mmioLatencyPs, linkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth, msixBase, msixSize);
    }

    public PcieConfig withRcb(int newRcb, boolean newRcbChunks) {
        return new PcieConfig(gen, lanes, mps, mrrs, newRcb, newRcbChunks, addr64, ecrc, readTags, hostReadLatencyPs,
                hostWriteLatencyPs, mmioLatencyPs, linkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth, msixBase, msixSize);
    }

    public PcieConfig withHeaders(boolean newAddr64, boolean newEcrc) {
        return new PcieConfig(gen, lanes, mps, mrrs, rcb, rcbChunks, newAddr64, newEcrc, readTags, hostReadLatencyPs,
                hostWriteLatencyPs, mmioLatencyPs, linkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth, msixBase, msixSize);
    }

    public PcieConfig withReadTags(int newReadTags) {
        return new PcieConfig(gen, lanes, mps, mrrs, rcb, rcbChunks, addr64, ecrc, newReadTags, hostReadLatencyPs, hostWriteLatencyPs, mmioLatencyPs,
                linkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth, msixBase, msixSize);
    }

    public PcieConfig withHostWriteLatency(long newHostWriteLatencyPs) {
        return new PcieConfig(gen, lanes, mps, mrrs, rcb, rcbChunks, addr64, ecrc, readTags, hostReadLatencyPs,
                newHostWriteLatencyPs, mmioLatencyPs, linkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth, msixBase,
                msixSize);
    }

    public PcieConfig withMmioLatency(long newMmioLatencyPs) {
        return new PcieConfig(gen, lanes, mps, mrrs, rcb, rcbChunks, addr64, ecrc, readTags, hostReadLatencyPs,
                hostWriteLatencyPs, newMmioLatencyPs, linkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth,
                msixBase, msixSize);
    }

    public PcieConfig withLatencies(long newHostReadLatencyPs, long newLinkLatencyPs) {
        return new PcieConfig(gen, lanes, mps, mrrs, rcb, rcbChunks, addr64, ecrc, readTags, newHostReadLatencyPs, hostWriteLatencyPs, mmioLatencyPs,
                newLinkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth, msixBase, msixSize);
    }

    public PcieConfig withDllpLimits(int newAckLimit, int newFcUpdateLimit) {
        return new PcieConfig(gen, lanes, mps, mrrs, rcb, rcbChunks, addr64, ecrc, readTags, hostReadLatencyPs,
                hostWriteLatencyPs, mmioLatencyPs, linkLatencyPs, newAckLimit, newFcUpdateLimit, deviceTxDepth, mmioQueueDepth, msixBase, msixSize);
    }

    public PcieConfig withQueues(int newDeviceTxDepth, int newMmioQueueDepth) {
        return new PcieConfig(gen, lanes, mps, mrrs, rcb, rcbChunks, addr64, ecrc, readTags, hostReadLatencyPs,
                hostWriteLatencyPs, mmioLatencyPs, linkLatencyPs, ackLimit, fcUpdateLimit, newDeviceTxDepth, newMmioQueueDepth, msixBase, msixSize);
    }

    public PcieConfig withMsix(long newMsixBase, long newMsixSize) {
        return new PcieConfig(gen, lanes, mps, mrrs, rcb, rcbChunks, addr64, ecrc, readTags, hostReadLatencyPs,
                hostWriteLatencyPs, mmioLatencyPs, linkLatencyPs, ackLimit, fcUpdateLimit, deviceTxDepth, mmioQueueDepth, newMsixBase, newMsixSize);
    }

    /** The Ack limit in effect: {@link #ackLimit} or the spec's recommendation. */
    public int effectiveAckLimit() {
        return ackLimit != 0 ? ackLimit : specLimit();
    }

    /** The flow-control update limit in effect: {@link #fcUpdateLimit} or the spec's recommendation. */
    public int effectiveFcUpdateLimit() {
        if (fcUpdateLimit != 0) {
            return fcUpdateLimit;
        }
        // The spec's FC update guideline equals the Ack table except two large-MPS x32 entries.
        if (gen == 1 && lanes == 32 && mps == 2048) {
            return 248;
        }
        if (gen == 2 && lanes == 32 && mps == 4096) {
            return 327;
        }
        return specLimit();
    }

    private int specLimit() {
        return ACK[Math.min(gen, 3) - 1][laneIndex(lanes)][Integer.numberOfTrailingZeros(mps) - 7];
    }

    /** Transfer rate of one lane in units of 0.5 GT/s (so that Gen1's 2.5 GT/s is an integer). */
    int halfGigaTransfers() {
        return switch (gen) {
            case 1 -> 5;
            case 2 -> 10;
            case 3 -> 16;
            case 4 -> 32;
            default -> 64;
        };
    }

    /** Wire bytes of a memory request header including framing and digest: 24 for a 64-bit MWr/MRd. */
    public int requestOverheadBytes() {
        return FRAMING_BYTES + HEADER_DW0_BYTES + (addr64 ? 12 : 8) + (ecrc ? 4 : 0);
    }

    /** Wire bytes of a completion-with-data header including framing and digest: 20 without ECRC. */
    public int completionOverheadBytes() {
        return FRAMING_BYTES + HEADER_DW0_BYTES + 8 + (ecrc ? 4 : 0);
    }

    /** Host address the device writes to raise MSI-X vector {@code vector}. */
    public long msixAddress(int vector) {
        if (vector < 0 || 4L * vector + 4 > msixSize) {
            throw new IllegalArgumentException("MSI-X vector " + vector + " is outside the window of " + msixSize + " bytes");
        }
        return msixBase + 4L * vector;
    }

    /** True if a write at {@code addr} falls in the MSI-X window. */
    public boolean isMsix(long addr) {
        return msixSize > 0 && Long.compareUnsigned(addr - msixBase, msixSize) < 0;
    }
}
