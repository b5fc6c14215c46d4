package dev.rdmasim.adapter.nic;

/**
 * The stages a request passes through, in pipeline order; each request records the simulated time
 * it reached each stage so outputs can show where the time went. A stage a request skips (no WQE
 * fetch after BlueFlame, no payload read for inline data) keeps the value {@link #NOT_REACHED}. Each stage
 * names the block whose work ends there ({@link #block()}), so outputs that narrate a request need no table of their own.
 */
public enum Stage {
    /** The driver finished writing the WQE (set by the host side). */
    POSTED(Block.HOST_CPU),
    /** The doorbell or the last BlueFlame chunk reached the adapter (stamped by the parser from the doorbell unit's time). */
    DOORBELL(Block.DOORBELL_UNIT),
    /**
     * The WQE was fetched by DMA and parsed. Empty for a WQE written whole by BlueFlame: it was never fetched, and
     * the parser's work on it is part of the step from the doorbell to the next stage.
     */
    WQE_FETCHED(Block.WQE_FETCH_ENGINE),
    /** The payload's DMA read completed (the first packet's worth). */
    PAYLOAD_READ(Block.TRANSMITTER),
    /** The transmitter put the first frame on the wire. */
    FIRST_PACKET(Block.TRANSMITTER),
    /** The transmitter put the last frame on the wire. */
    LAST_PACKET(Block.TRANSMITTER),
    /** The responder placed the last byte in its host memory (write issued to PCIe). */
    REMOTE_PLACED(Block.PEER_RECEIVER),
    /** The acknowledgement (or last read response) retiring the request arrived. */
    ACKED(Block.REQUESTER_TRANSPORT),
    /** The CQE reporting the request landed in host memory. */
    CQE_WRITTEN(Block.CQE_WRITER),
    /** The driver's poll call that took the completion returned (set by the host side). */
    POLLED(Block.HOST_CPU);

    /** The blocks whose work the stages mark, named as in the adapter's statistics and waveforms. */
    public enum Block {
        /** The host's CPU (driver and consumer). */
        HOST_CPU("host", "cpu"),
        /** The adapter's doorbell unit (doorbells and BlueFlame writes). */
        DOORBELL_UNIT("nic", "db"),
        /** The adapter's WQE fetch engine (DMA reads of the send ring). */
        WQE_FETCH_ENGINE("nic", "fetch"),
        /** The adapter's transmitter (payload reads, packetizing). */
        TRANSMITTER("nic", "tx"),
        /** The peer adapter's receiver (the responder side). */
        PEER_RECEIVER("peer", "rx"),
        /** The adapter's requester transport (acknowledgements, read responses). */
        REQUESTER_TRANSPORT("nic", "req"),
        /** The adapter's CQE writer. */
        CQE_WRITER("nic", "cqe");

        private final String owner;
        private final String unit;

        Block(String owner, String unit) {
            this.owner = owner;
            this.unit = unit;
        }

        /**
         * The block's name on a given side, e.g. {@code nicA.fetch}: {@code self} is the side of the request's
         * initiator ("A" or "B"), {@code peer} the other side.
         */
        public String name(String self, String peer) {
            return switch (owner) {
                case "host" -> "host" + self + "." + unit;
                case "peer" -> "nic" + peer + "." + unit;
                default -> "nic" + self + "." + unit;
            };
        }
    }

    private final Block block;

    Stage(Block block) {
        this.block = block;
    }

    /** The block whose work ends at this stage (the one to look at when the step to it takes long). */
    public Block block() {
        return block;
    }

    public static final long NOT_REACHED = -1;
    private static final Stage[] ALL = values();

    public static Stage[] all() {
        return ALL.clone();
    }
}
