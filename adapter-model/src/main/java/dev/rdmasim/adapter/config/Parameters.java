package dev.rdmasim.adapter.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry: every parameter of the adapter model, one constant each, in the order profiles
 * print them, plus the cross-parameter {@link #RULES}. The defaults here are the {@code default}
 * profile: a ConnectX-5-like Gen3 x16, 100 Gb/s RoCEv2 adapter. Keys are a contract: other code,
 * user YAML files and command lines use them.
 */
public final class Parameters {
    // Sources, cited in docs/profiles.md.
    private static final String PCIE_SPEC = "PCIe base spec";
    private static final String PCIE_BENCH = "Neugebauer et al., SIGCOMM 2018 (pcie-bench)";
    private static final String KALIA = "Kalia et al., USENIX ATC 2016";
    private static final String MLX5 = "rdma-core mlx5 WQE layout";
    private static final String DEVINFO = "ibv_devinfo -v of mlx5 adapters (ConnectX-4/5)";
    private static final String IBTA = "InfiniBand Architecture spec vol. 1";
    private static final String NDK = "ndkinfo.h NDK_ADAPTER_INFO";
    private static final String PERFTEST = "perftest defaults";
    private static final String MODEL = "model choice";
    /** The validation rows a fitted value was chosen on ({@code rdmasim validate}, docs/calibration.md). */
    private static final String FITTED = "fitted to the validation rows (cx5-*-lat-8, cx4-send-lat-*)";

    private static final List<Parameter<?>> ALL = new ArrayList<>();

    // ---- PCIe link between host and adapter ----
    public static final Parameter<Long> PCIE_GEN = add(integer("pcie.gen", "3").range("1", "5")
            .doc("PCIe generation: 1-2 use 8b/10b at 2.5/5 GT/s, 3-5 use 128b/130b at 8/16/32 GT/s").src(PCIE_SPEC));
    public static final Parameter<Long> PCIE_LANES = add(integer("pcie.lanes", "16").range("1", "32").pow2()
            .doc("Link width in lanes").src("ConnectX-5 product brief (Gen3 x16)"));
    public static final Parameter<Long> PCIE_MPS = add(bytes("pcie.mps", "256B").range("128B", "4KiB").pow2()
            .doc("Max payload size: largest data payload of one write or completion TLP").src(PCIE_BENCH));
    public static final Parameter<Long> PCIE_MRRS = add(bytes("pcie.mrrs", "512B").range("128B", "4KiB").pow2()
            .doc("Max read request size: largest read one request TLP may ask for").src(PCIE_BENCH));
    public static final Parameter<Long> PCIE_RCB = add(bytes("pcie.rcb", "64B").range("64B", "128B").pow2()
            .doc("Read completion boundary of the root complex").src(PCIE_SPEC));
    public static final Parameter<Boolean> PCIE_RCB_CHUNKS = add(bool("pcie.rcbChunks", "false")
            .doc("Root complex splits read completions at every RCB boundary instead of MPS-sized chunks")
            .src(MODEL + ": false reproduces the pcie-bench read bandwidths (256 B read 53.69 Gb/s on Gen3 x8)"));
    public static final Parameter<Boolean> PCIE_ADDR64 = add(bool("pcie.addr64", "true")
            .doc("DMA requests use 64-bit addresses (4-DW header, 24 B per request TLP)").src(PCIE_BENCH));
    public static final Parameter<Boolean> PCIE_ECRC = add(bool("pcie.ecrc", "false")
            .doc("TLPs carry a 4 B end-to-end CRC").src(PCIE_BENCH));
    public static final Parameter<Long> PCIE_READ_TAGS = add(integer("pcie.readTags", "256").range("1", "1024")
            .doc("Outstanding non-posted (read) requests the adapter may have, i.e. usable tags")
            .src(PCIE_SPEC + ": 8-bit extended tag field"));
    public static final Parameter<Long> PCIE_HOST_READ_LATENCY = add(time("pcie.hostReadLatency", "412ns")
            .range("0ps", "100us")
            .doc("Root complex and memory time from a read request's arrival to its first completion leaving")
            .src(PCIE_BENCH + ": fitted to the 64 B DMA read median of 546 ns (Xeon E5-2630 v4), minus"
                    + " 2 x pcie.linkLatency and TLP time"));
    public static final Parameter<Long> PCIE_HOST_WRITE_LATENCY = add(time("pcie.hostWriteLatency", "180ns").range("0ps", "10us")
            .doc("Time the root complex and memory take to commit a device's posted write before the CPU can see it"
                    + " (in arrival order, so a CQE is never seen before its data)")
            .src(FITTED + "; Intel's TCC tuning guide puts a PCIe-to-memory write at about half a DMA read"
                    + " (half of 546 ns, less the link flight: about 200 ns)"));
    public static final Parameter<Long> PCIE_MMIO_LATENCY = add(time("pcie.mmioLatency", "40ns").range("0ps", "10us")
            .doc("Time a CPU MMIO store (doorbell, BlueFlame chunk) takes through the uncore to the root port before"
                    + " its TLP can leave (in order; the CPU's own store and write-combining flush are host.*)")
            .src(FITTED + "; 50-300 ns between consecutive MMIO write TLPs are reported"));
    public static final Parameter<Long> PCIE_LINK_LATENCY = add(time("pcie.linkLatency", "60ns").range("0ps", "10us")
            .doc("One-way PCIe link and PHY latency, added to every TLP after serialization")
            .src(MODEL + ": with hostReadLatency gives the pcie-bench 64 B read latency"));
    public static final Parameter<Long> PCIE_ACK_LIMIT = add(bytes("pcie.ackLimit", "0B").range("0B", "8KiB")
            .doc("Bytes of TLPs per Ack DLLP; 0 = the spec table for the link's MPS and width").src(PCIE_BENCH));
    public static final Parameter<Long> PCIE_FC_UPDATE_LIMIT = add(bytes("pcie.fcUpdateLimit", "0B").range("0B", "8KiB")
            .doc("Bytes of TLPs per flow-control update DLLP; 0 = the spec table").src(PCIE_BENCH));
    public static final Parameter<Long> PCIE_MSIX_ADDRESS = add(hex("pcie.msixAddress", "0xFEE00000")
            .range("0", "0x7FFFFFFFFFFFFFFF")
            .doc("Host address MSI-X message writes go to (start of the interrupt window)")
            .src("Intel SDM: x86 MSI address range 0xFEExxxxx"));
    public static final Parameter<Boolean> PCIE_EVENT_PER_TLP = add(bool("pcie.eventPerTlp", "false")
            .doc("Simulate every TLP delivery and device write commit as an event of its own: the reference path,"
                    + " with the same results as the default (which hands over TLPs nothing waits for when next looked"
                    + " at), only slower")
            .src(MODEL + ": a simulation switch, not hardware"));

    // ---- Adapter internals ----
    public static final Parameter<Long> NIC_CLOCK = add(frequency("nic.clock", "500MHz").range("10MHz", "4GHz")
            .doc("Clock of the adapter's processing pipelines").src(MODEL + ": typical ASIC core clock"));
    public static final Parameter<Long> NIC_MAX_WQE_BYTES = add(bytes("nic.maxWqeBytes", "512B").range("64B", "4KiB")
            .multipleOf(64).doc("Largest send WQE (64 B basic blocks); bounds SGEs and inline data per WQE")
            .src(MLX5 + ": 30 SGEs = (512 - 32) / 16 as ConnectX-4/5 report"));
    public static final Parameter<Long> NIC_WQE_FETCH_MAX_BYTES = add(bytes("nic.wqeFetchMaxBytes", "512B")
            .range("64B", "4KiB").multipleOf(64)
            .doc("Most WQE bytes one fetch DMA read asks for (several WQEs per read)")
            .src(MODEL + ": one MRRS-sized read"));
    public static final Parameter<Long> NIC_WQE_PREFETCH_DEPTH = add(integer("nic.wqePrefetchDepth", "16")
            .range("1", "1024").doc("WQEs fetched ahead of execution per QP").src(MODEL));
    public static final Parameter<Long> NIC_RQ_PREFETCH_DEPTH = add(integer("nic.rqPrefetchDepth", "64")
            .range("1", "1024").doc("Receive WQEs the responder keeps fetched ahead per QP (topped up when half used,"
                    + " in reads of at most nic.wqeFetchMaxBytes)")
            .src(MODEL + ": enough to cover a PCIe read at the link's small-message rate (send_bw 64 B"
                    + " stops depending on pcie.hostReadLatency from 32)"));
    public static final Parameter<Long> NIC_WQE_CACHE_ENTRIES = add(integer("nic.wqeCacheEntries", "1024")
            .range("1", "1048576").doc("On-chip WQE buffer, in 64 B basic blocks shared by all QPs").src(MODEL));
    public static final Parameter<Long> NIC_INLINE_BUFFER_BYTES = add(bytes("nic.inlineBufferBytes", "16KiB")
            .range("64B", "64MiB").doc("On-chip buffer for inline payload waiting to be packetized").src(MODEL));
    public static final Parameter<Long> NIC_BLUEFLAME_BYTES = add(bytes("nic.blueflameBytes", "256B")
            .range("64B", "2KiB").multipleOf(64)
            .doc("Size of one BlueFlame register half; both halves must fit the 4 KiB doorbell page")
            .src("rdma-core mlx5 BlueFlame: register half of 256 B"));
    public static final Parameter<Long> NIC_MAX_OUTSTANDING_PER_QP = add(integer("nic.maxOutstandingPerQp", "512")
            .range("1", "65536").doc("WQEs of one QP in execution at once (fetched, not yet completed)")
            .src(KALIA + ": best outbound concurrency 512 per QP on Connect-IB"));
    public static final Parameter<Long> NIC_WQE_FETCH_SLOTS = add(integer("nic.wqeFetchSlots", "32")
            .range("1", "4096").doc("DMA reads the WQE fetch engine keeps in flight (send-ring blocks and QP contexts)").src(MODEL));
    public static final Parameter<Long> NIC_TX_SLOTS = add(integer("nic.txSlots", "128")
            .range("1", "65536").doc("Transmit buffer slots, one packet each; a slot is held from its payload read until the frame leaves").src(MODEL));
    public static final Parameter<Long> NIC_QPC_CACHE_ENTRIES = add(integer("nic.qpcCacheEntries", "1024")
            .range("1", "16777216").doc("QP context cache entries (misses DMA-read the context from host memory)")
            .src(MODEL));
    public static final Parameter<Long> NIC_QPC_CACHE_WAYS = add(integer("nic.qpcCacheWays", "8").range("1", "1024")
            .doc("QP context cache associativity").src(MODEL));
    public static final Parameter<Long> NIC_CQC_CACHE_ENTRIES = add(integer("nic.cqcCacheEntries", "256")
            .range("1", "16777216").doc("CQ context cache entries").src(MODEL));
    public static final Parameter<Long> NIC_CQC_CACHE_WAYS = add(integer("nic.cqcCacheWays", "4").range("1", "1024")
            .doc("CQ context cache associativity").src(MODEL));
    public static final Parameter<Long> NIC_MKEY_CACHE_ENTRIES = add(integer("nic.mkeyCacheEntries", "1024")
            .range("1", "16777216").doc("Memory key (MR context) cache entries").src(MODEL));
    public static final Parameter<Long> NIC_MKEY_CACHE_WAYS = add(integer("nic.mkeyCacheWays", "8").range("1", "1024")
            .doc("Memory key cache associativity").src(MODEL));
    public static final Parameter<Long> NIC_MTT_CACHE_ENTRIES = add(integer("nic.mttCacheEntries", "4096")
            .range("1", "16777216").doc("Translation (MTT) cache entries, one page each").src(MODEL));
    public static final Parameter<Long> NIC_MTT_CACHE_WAYS = add(integer("nic.mttCacheWays", "8").range("1", "1024")
            .doc("Translation cache associativity").src(MODEL));
    public static final Parameter<String> NIC_CACHE_REPLACEMENT = add(choice("nic.cacheReplacement", "lru")
            .oneOf("lru", "fifo", "random").doc("Replacement policy of the context and translation caches")
            .src(MODEL));
    public static final Parameter<Long> NIC_PAGE_SIZE = add(bytes("nic.pageSize", "4KiB").range("4KiB", "1GiB").pow2()
            .doc("Page size of memory registrations (one MTT entry per page)").src("x86-64 base page"));
    public static final Parameter<Long> NIC_WQE_PARSE_CYCLES = add(integer("nic.wqeParseCycles", "4")
            .range("1", "100000").doc("nic.clock cycles to decode one WQE").src(MODEL));
    public static final Parameter<Long> NIC_TX_PACKET_CYCLES = add(integer("nic.txPacketCycles", "5")
            .range("1", "100000").doc("nic.clock cycles the transmit engine spends per packet")
            .src(MODEL + ": ~100 Mpps at 500 MHz, order of Connect-IB's 88-101 Mops (" + KALIA + ")"));
    public static final Parameter<Long> NIC_RX_PACKET_CYCLES = add(integer("nic.rxPacketCycles", "5")
            .range("1", "100000").doc("nic.clock cycles the receive engine spends per packet").src(MODEL));
    public static final Parameter<Long> NIC_CQE_CYCLES = add(integer("nic.cqeCycles", "4").range("1", "100000")
            .doc("nic.clock cycles to build one CQE").src(MODEL));
    // Pipeline depths: latency through a block beyond its initiation interval (the *Cycles above), which a
    // pipelined block pays per item without taking fewer items per cycle.
    public static final Parameter<Long> NIC_WQE_PIPELINE_CYCLES = add(integer("nic.wqePipelineCycles", "30")
            .range("0", "100000").doc("Pipeline depth of WQE processing (QP-context lookup, WQE decode) beyond"
                    + " nic.wqeParseCycles: latency only")
            .src(FITTED + "; ASIC adapters spend hundreds of ns per direction (by subtraction"
                    + " from perftest latency)"));
    public static final Parameter<Long> NIC_TX_PIPELINE_CYCLES = add(integer("nic.txPipelineCycles", "25")
            .range("0", "100000").doc("Pipeline depth of packet build (headers, ICRC) beyond nic.txPacketCycles:"
                    + " latency only").src(FITTED + "; ASIC adapters spend hundreds of ns per direction (by subtraction"
                    + " from perftest latency)"));
    public static final Parameter<Long> NIC_RX_PIPELINE_CYCLES = add(integer("nic.rxPipelineCycles", "25")
            .range("0", "100000").doc("Pipeline depth of receive parse, steering and responder beyond"
                    + " nic.rxPacketCycles: latency only")
            .src(FITTED + "; ASIC adapters spend hundreds of ns per direction (by subtraction"
                    + " from perftest latency)"));
    public static final Parameter<Long> NIC_CQE_PIPELINE_CYCLES = add(integer("nic.cqePipelineCycles", "10")
            .range("0", "100000").doc("Pipeline depth of CQE build beyond nic.cqeCycles: latency only")
            .src(FITTED + "; ASIC adapters spend hundreds of ns per direction (by subtraction"
                    + " from perftest latency)"));
    public static final Parameter<Long> NIC_DMA_WRITE_QUEUE = add(integer("nic.dmaWriteQueue", "64")
            .range("1", "65536").doc("DMA write requests queued in front of the PCIe transmitter")
            .src(MODEL + ": SimBricks runners allow 64 outstanding DMAs"));
    public static final Parameter<Long> NIC_DMA_READ_QUEUE = add(integer("nic.dmaReadQueue", "64")
            .range("1", "65536").doc("DMA read requests queued waiting for a tag").src(MODEL));
    public static final Parameter<Long> NIC_EQ_DEPTH = add(integer("nic.eqDepth", "1024").range("2", "4194304").pow2()
            .doc("Event queue entries (a power-of-two ring)").src(MODEL));
    public static final Parameter<Long> NIC_MSIX_VECTORS = add(integer("nic.msixVectors", "64").range("1", "2048")
            .doc("MSI-X vectors the adapter exposes").src(PCIE_SPEC + ": at most 2048 per function"));
    public static final Parameter<Long> NIC_FIRMWARE_COMMAND_LATENCY = add(time("nic.firmwareCommandLatency", "20us")
            .range("0ps", "1s").doc("Time a control command (create QP, register MR, ...) takes in firmware")
            .src(MODEL));
    public static final Parameter<Long> NIC_MAX_QPS = add(integer("nic.maxQps", "262144").range("1", "16777216")
            .doc("QPs the adapter supports (24-bit QP numbers)").src(DEVINFO + ": max_qp"));
    public static final Parameter<Long> NIC_MAX_CQS = add(integer("nic.maxCqs", "16777216").range("1", "16777216")
            .doc("CQs the adapter supports").src(DEVINFO + ": max_cq"));
    public static final Parameter<Long> NIC_MAX_MRS = add(integer("nic.maxMrs", "16777216").range("1", "16777216")
            .doc("Memory regions the adapter supports (24-bit key index)").src(DEVINFO + ": max_mr"));
    public static final Parameter<Long> NIC_MAX_PDS = add(integer("nic.maxPds", "16777216").range("1", "16777216")
            .doc("Protection domains the adapter supports").src(DEVINFO + ": max_pd"));

    // ---- Ethernet link (RoCEv2) ----
    public static final Parameter<Long> LINK_RATE = add(rate("link.rate", "100Gbps").range("25Gbps", "400Gbps")
            .doc("Line rate of the port").src("ConnectX-5 product brief (100 GbE)"));
    public static final Parameter<Long> LINK_PROPAGATION_DELAY = add(time("link.propagationDelay", "10ns")
            .range("0ps", "1s").doc("One-way delay of the cable between the two ports")
            .src(MODEL + ": 2 m direct-attach cable at ~5 ns/m"));
    public static final Parameter<Long> LINK_MTU = add(bytes("link.mtu", "1024B").range("256B", "4KiB").pow2()
            .doc("Path MTU: payload bytes per RoCE packet")
            .src(IBTA + ": largest IB MTU below the default 1500 B Ethernet MTU"));
    public static final Parameter<Double> LINK_DROP_PROBABILITY = add(dbl("link.dropProbability", "0")
            .range("0", "1").doc("Probability a frame is lost on the wire").src(MODEL + ": lossless by default"));
    public static final Parameter<Double> LINK_CORRUPT_PROBABILITY = add(dbl("link.corruptProbability", "0")
            .range("0", "1").doc("Probability a frame arrives with a bad ICRC/FCS and is discarded")
            .src(MODEL + ": lossless by default"));
    public static final Parameter<String> LINK_FEC = add(choice("link.fec", "rs528").oneOf("none", "rs528", "rs544", "rs272")
            .doc("Forward error correction on the line: a frame is decoded only once the codeword holding its last bit"
                    + " has arrived (rs528/rs544: 5120 MAC bits per codeword, 51.2 ns at 100 Gb/s; rs272: half)")
            .src("IEEE 802.3 clauses 91, 119, 161 (RS(528,514), RS(544,514), RS(272,257)): 100GBASE-CR4/KR4"
                    + " on 25 Gb/s lanes use RS(528,514)"));
    public static final Parameter<Long> LINK_PHY_TX_LATENCY = add(time("link.phyTxLatency", "40ns").range("0ps", "10us")
            .doc("Transmit PHY pipeline: MAC, PCS, FEC encoder and SerDes, from the MAC to the line (latency only)")
            .src(FITTED + "; 100 GbE MAC/PCS/PMA cores report tens of ns per direction"));
    public static final Parameter<Long> LINK_PHY_RX_LATENCY = add(time("link.phyRxLatency", "60ns").range("0ps", "10us")
            .doc("Receive PHY pipeline: SerDes, PCS, FEC decoder and MAC, from a complete codeword to the MAC (latency only)")
            .src(FITTED + "; the receive side adds deskew and the RS decoder to the transmit pipeline"));
    public static final Parameter<Long> LINK_RX_BUFFER_FRAMES = add(integer("link.rxBufferFrames", "256")
            .range("1", "65535").doc("Frame buffers per port: frames queued, on the wire or held by the receiver; when all are in use the sender waits (lossless, PFC-like); with link.flowControl=pfc, transmit and receive buffers each").src(MODEL));
    public static final Parameter<String> LINK_FLOW_CONTROL = add(choice("link.flowControl", "stall").oneOf("stall", "pfc")
            .doc("How a receiving port that cannot take a frame holds back the far transmitter: stall (at once, no frame"
                    + " on the wire; a frame buffer is held from the sender to the far receiver's release) or pfc (the"
                    + " frame waits in the MAC's FIFO while the far end keeps sending; 802.1Qbb XOFF/XON pause frames at"
                    + " the link.pfcXoff/link.pfcXon FIFO levels; link.rxBufferFrames transmit buffers, free once sent,"
                    + " and as many receive buffers per port)")
            .src(MODEL + "; PFC per IEEE 802.1Qbb"));
    public static final Parameter<Long> LINK_PFC_XOFF = add(bytes("link.pfcXoff", "64KiB").range("1B", "16MiB")
            .doc("With link.flowControl=pfc: FIFO bytes behind a refused frame (its own included) at which the port sends XOFF")
            .src(MODEL));
    public static final Parameter<Long> LINK_PFC_XON = add(bytes("link.pfcXon", "32KiB").range("0B", "16MiB")
            .doc("With link.flowControl=pfc: FIFO bytes at or below which a paused port sends XON")
            .src(MODEL));
    public static final Parameter<Long> LINK_PFC_QUANTA = add(integer("link.pfcQuanta", "65535").range("1", "65535")
            .doc("With link.flowControl=pfc: pause time an XOFF asks for, in quanta of 512 bit times (65535: 335.5 us at"
                    + " 100 Gb/s); refreshed every half of it while the FIFO stays above link.pfcXon")
            .src("IEEE 802.1Qbb: 16-bit pause time per priority"));
    public static final Parameter<Long> LINK_PFC_FIFO = add(bytes("link.pfcFifo", "256KiB").range("1B", "64MiB")
            .doc("With link.flowControl=pfc: room of the receiving MAC's FIFO; a frame arriving without room is lost"
                    + " (the headroom above link.pfcXoff must hold what arrives in a pause's round trip)")
            .src(MODEL));

    // ---- RC transport ----
    public static final Parameter<Long> TRANSPORT_MAX_UNACKED_PSNS = add(integer("transport.maxUnackedPsns", "128")
            .range("1", "8388608").doc("Packets a requester may have sent and not yet seen acknowledged")
            .src("Linux rxe requester (about 128)"));
    public static final Parameter<Long> TRANSPORT_ACK_TIMEOUT = add(time("transport.ackTimeout", "67108.864us")
            .range("1ns", "1000s").doc("Retransmit timer of a requester waiting for an ACK")
            .src(IBTA + ": 4.096 us x 2^14 (timeout code 14)"));
    public static final Parameter<Long> TRANSPORT_RETRY_COUNT = add(integer("transport.retryCount", "7")
            .range("0", "7").doc("Retransmissions after a timeout or sequence NAK before TRANSPORT_RETRY_EXC")
            .src(IBTA + ": 3-bit retry count"));
    public static final Parameter<Long> TRANSPORT_RNR_RETRY_COUNT = add(integer("transport.rnrRetryCount", "7")
            .range("0", "7").doc("Retries after an RNR NAK before RNR_RETRY_EXC; 7 = retry forever")
            .src(IBTA + ": 3-bit RNR retry count"));
    public static final Parameter<Long> TRANSPORT_RNR_TIMER = add(time("transport.rnrTimer", "640us")
            .range("10us", "655.36ms").doc("Wait after an RNR NAK before resending")
            .src(IBTA + ": RNR timer code 12 = 0.64 ms"));
    public static final Parameter<Long> TRANSPORT_ACK_COALESCE = add(integer("transport.ackCoalesce", "1")
            .range("1", "1024").doc("Responder sends one ACK per this many packets (and for every ACK request)")
            .src(MODEL));
    public static final Parameter<Long> TRANSPORT_MAX_INBOUND_READS = add(integer("transport.maxInboundReads", "16")
            .range("0", "255").doc("Default per-QP RDMA READs served at once as responder (IRD)")
            .src(DEVINFO + ": max_qp_rd_atom"));
    public static final Parameter<Long> TRANSPORT_MAX_OUTBOUND_READS = add(integer("transport.maxOutboundReads", "16")
            .range("0", "255").doc("Default per-QP RDMA READs outstanding as requester (ORD)")
            .src(DEVINFO + ": max_qp_init_rd_atom"));

    // ---- Completion queues ----
    public static final Parameter<Long> CQ_MODERATION_COUNT = add(integer("cq.moderationCount", "1").range("1", "65535")
            .doc("CQEs before an armed CQ raises its event; 1 = no moderation")
            .src(MODEL + ": RDMA CQs start unmoderated (mlx5 Ethernet uses 32)"));
    public static final Parameter<Long> CQ_MODERATION_PERIOD = add(time("cq.moderationPeriod", "0ps")
            .range("0ps", "65535us").doc("Longest an armed CQ's event waits for moderationCount; 0 = no wait")
            .src(MODEL + ": RDMA CQs start unmoderated (mlx5 Ethernet uses 16 us)"));

    // ---- Host CPU and driver ----
    public static final Parameter<Long> HOST_WQE_BUILD_TIME = add(time("host.wqeBuildTime", "25ns").range("0ps", "1ms")
            .doc("CPU time to write one WQE into the send queue").src(MODEL));
    public static final Parameter<Long> HOST_MMIO_STORE_TIME = add(time("host.mmioStoreTime", "50ns")
            .range("0ps", "1ms").doc("CPU cost of one 8 B MMIO doorbell store and the barrier that pushes it out")
            .src("one core; 50-300 ns between consecutive MMIO write TLPs are reported (calibration.md section 5)"));
    public static final Parameter<Long> HOST_WC_FLUSH_TIME = add(time("host.wcFlushTime", "10ns").range("0ps", "1ms")
            .doc("CPU cost of writing one 64 B chunk of a BlueFlame WQE into the write-combining buffer")
            .src(MODEL + ": a 64 B store burst; the flush that pushes the chunks out is host.wcBarrierTime"));
    public static final Parameter<Long> HOST_WC_BARRIER_TIME = add(time("host.wcBarrierTime", "80ns").range("0ps", "1ms")
            .doc("CPU cost of the store fence after a BlueFlame copy, which waits for the write-combining buffer to"
                    + " drain toward the root port (once per BlueFlame doorbell, whatever its chunks)")
            .src("fitted to cx5-one-qp-rate-64 (a few Mpps on one QP); about 100 ns between write-combining"
                    + " flushes are measured (kPIO+WC)"));
    public static final Parameter<Long> HOST_POLL_TIME = add(time("host.pollTime", "20ns").range("0ps", "1ms")
            .doc("CPU time of one CQ poll (read and check one CQE)").src(MODEL));
    public static final Parameter<Long> HOST_POLL_MISS_TIME = add(time("host.pollMissTime", "40ns").range("0ps", "1ms")
            .doc("Extra CPU time of a poll that finds new data: the adapter's DMA write invalidated the line in the"
                    + " core's caches, so the read misses to the last-level cache (DDIO) or memory")
            .src(FITTED + "; a last-level-cache hit on a line the adapter wrote with DDIO (Xeon)"));
    public static final Parameter<Boolean> HOST_EVENT_PER_POLL = add(bool("host.eventPerPoll", "false")
            .doc("Simulate every empty poll of a perf benchmark thread spinning on host memory (write_lat's last byte, an"
                    + " empty CQ) as an event of its own: the reference path, with the same results as the default (which"
                    + " lets such a thread sleep until the adapter writes the byte or a CQE lands, then resume at its next"
                    + " poll and charge the polls it skipped), only slower")
            .src(MODEL + ": a simulation switch, not hardware"));
    public static final Parameter<Long> HOST_CPU_CLOCK = add(frequency("host.cpuClock", "2.5GHz").range("100MHz", "10GHz")
            .doc("Host CPU clock, for reports in cycles").src(MODEL + ": Xeon-class server"));
    public static final Parameter<Long> HOST_CORES = add(integer("host.cores", "1").range("1", "256")
            .doc("Host CPU cores running driver work in parallel; each QP posts on one core (QP i on core i mod "
                    + "cores unless placed explicitly), and all cores share the root complex's MMIO posted queue")
            .src(MODEL + ": one posting thread per core, as perftest/Kalia's benchmarks run"));

    public static final Parameter<Long> HOST_DEFER_LIMIT = add(integer("host.deferLimit", "16").range("1", "4096")
            .doc("Most requests posted with NDK_OP_FLAG_DEFER the NDK provider holds back before it rings the doorbell "
                    + "anyway (one doorbell for the batch)")
            .src(MODEL + ": a provider choice; the flag is a hint"));

    public static final Parameter<Long> HOST_CM_RNR_RETRY_COUNT = add(integer("host.cmRnrRetryCount", "6").range("0", "7")
            .doc("RNR retries the host's connection manager asks its peer to make before failing a SEND that finds "
                    + "no receive posted (sent in the REQ and REP; 7 = retry forever)")
            .src(MODEL + ": NetworkDirect consumers expect such a SEND to fail with IO_TIMEOUT; librdmacm asks 7"));

    // ---- NDK_ADAPTER_INFO, in header order ----
    public static final Parameter<Long> NDK_VENDOR_ID = add(hex("ndk.vendorId", "0x2C9").range("0", "0xFFFFFFFF")
            .doc("VendorId: the vendor's IEEE OUI").src(NDK + "; Mellanox OUI 00-02-C9"));
    public static final Parameter<Long> NDK_DEVICE_ID = add(hex("ndk.deviceId", "0x1017").range("0", "0xFFFFFFFF")
            .doc("DeviceId: vendor-defined device identifier").src("PCI ID database: ConnectX-5 15b3:1017"));
    public static final Parameter<Long> NDK_MAX_REGISTRATION_SIZE = add(bytes("ndk.maxRegistrationSize", "128TiB")
            .range("4KiB", "4EiB").doc("MaxRegistrationSize: largest single memory registration")
            .src(MODEL + ": x86-64 user address space (mlx5 reports 2^64-1)"));
    public static final Parameter<Long> NDK_MAX_WINDOW_SIZE = add(bytes("ndk.maxWindowSize", "128TiB")
            .range("4KiB", "4EiB").doc("MaxWindowSize: largest memory window").src(MODEL + ": same as registrations"));
    public static final Parameter<Long> NDK_FRMR_PAGE_COUNT = add(integer("ndk.frmrPageCount", "256")
            .range("16", "4294967295").doc("FRMRPageCount: fast-register MR size in pages best supported")
            .src(NDK + ": at least 16; 256 is a model choice"));
    public static final Parameter<Long> NDK_MAX_INITIATOR_REQUEST_SGE = add(integer("ndk.maxInitiatorRequestSge", "30")
            .range("1", "4294967295").doc("MaxInitiatorRequestSge: SGEs per send/write request").src(DEVINFO + ": max_sge"));
    public static final Parameter<Long> NDK_MAX_RECEIVE_REQUEST_SGE = add(integer("ndk.maxReceiveRequestSge", "30")
            .range("1", "4294967295").doc("MaxReceiveRequestSge: SGEs per receive request").src(DEVINFO + ": max_sge"));
    public static final Parameter<Long> NDK_MAX_READ_REQUEST_SGE = add(integer("ndk.maxReadRequestSge", "30")
            .range("1", "4294967295").doc("MaxReadRequestSge: SGEs per read request (overrides the initiator limit)")
            .src(DEVINFO + ": max_sge"));
    public static final Parameter<Long> NDK_MAX_TRANSFER_LENGTH = add(bytes("ndk.maxTransferLength", "1GiB")
            .range("1B", "2GiB").doc("MaxTransferLength: total SGE bytes of one request")
            .src("mlx5 port attribute max_msg_sz 0x40000000"));
    public static final Parameter<Long> NDK_MAX_INLINE_DATA_SIZE = add(bytes("ndk.maxInlineDataSize", "476B")
            .range("0B", "4KiB").doc("MaxInlineDataSize: largest inline payload of one request")
            .src(MLX5 + ": 512 B WQE - 32 B control+raddr - 4 B inline header"));
    public static final Parameter<Long> NDK_MAX_INBOUND_READ_LIMIT = add(integer("ndk.maxInboundReadLimit", "16")
            .range("0", "255").doc("MaxInboundReadLimit: most inbound RDMA READs per QP").src(DEVINFO + ": max_qp_rd_atom"));
    public static final Parameter<Long> NDK_MAX_OUTBOUND_READ_LIMIT = add(integer("ndk.maxOutboundReadLimit", "16")
            .range("0", "255").doc("MaxOutboundReadLimit: most outbound RDMA READs per QP")
            .src(DEVINFO + ": max_qp_init_rd_atom"));
    public static final Parameter<Long> NDK_MAX_RECEIVE_QUEUE_DEPTH = add(integer("ndk.maxReceiveQueueDepth", "32768")
            .range("1", "4294967295").doc("MaxReceiveQueueDepth: receive queue entries per QP").src(DEVINFO + ": max_qp_wr"));
    public static final Parameter<Long> NDK_MAX_INITIATOR_QUEUE_DEPTH = add(integer("ndk.maxInitiatorQueueDepth", "4096")
            .range("1", "4294967295").doc("MaxInitiatorQueueDepth: initiator (send) queue entries per QP")
            .src(MODEL + ": a QP with every limit at its maximum (4096 WQEs of 512 B) fills the largest send ring the "
                    + "16-bit WQE counter allows, 32768 basic blocks; mlx5 reports max_qp_wr 32768 for its smallest WQEs"));
    public static final Parameter<Long> NDK_MAX_SRQ_DEPTH = add(integer("ndk.maxSrqDepth", "32767")
            .range("0", "4294967295").doc("MaxSrqDepth: shared receive queue entries; 0 = no SRQ").src(DEVINFO + ": max_srq_wr"));
    public static final Parameter<Long> NDK_MAX_CQ_DEPTH = add(integer("ndk.maxCqDepth", "4194303")
            .range("1", "4294967295").doc("MaxCqDepth: entries per CQ").src(DEVINFO + ": max_cqe"));
    public static final Parameter<Long> NDK_LARGE_REQUEST_THRESHOLD = add(bytes("ndk.largeRequestThreshold", "8KiB")
            .range("0B", "4GiB").doc("LargeRequestThreshold: transfer size above which the consumer should prefer RDMA")
            .src(MODEL));
    public static final Parameter<Long> NDK_MAX_CALLER_DATA = add(bytes("ndk.maxCallerData", "56B").range("0B", "4GiB")
            .doc("MaxCallerData: private data bytes in a connect request")
            .src(IBTA + ": 92 B CM REQ private data minus 36 B RDMA CM IP header"));
    public static final Parameter<Long> NDK_MAX_CALLEE_DATA = add(bytes("ndk.maxCalleeData", "196B").range("0B", "4GiB")
            .doc("MaxCalleeData: private data bytes in an accept").src(IBTA + ": 196 B CM REP private data"));
    public static final Parameter<Long> NDK_ADAPTER_FLAGS = add(hex("ndk.adapterFlags", "0x105").range("0", "0xFFFFFFFF")
            .doc("AdapterFlags: IN_ORDER_DMA 0x1, READ_SINK_NOT_REQUIRED 0x2, CQ_INTERRUPT_MODERATION 0x4, "
                    + "MULTI_ENGINE 0x8, READ_LOCAL_INVALIDATE 0x10, CQ_RESIZE 0x100, LOOPBACK_CONNECTIONS 0x10000")
            .src(NDK + "; in-order placement, CQ moderation and CQ resize are what the model does"));
    public static final Parameter<Long> NDK_RDMA_TECHNOLOGY = add(integer("ndk.rdmaTechnology", "4").range("0", "4")
            .doc("RdmaTechnology: 0 undefined, 1 iWARP, 2 InfiniBand, 3 RoCE, 4 RoCEv2").src(NDK + "; the model speaks RoCEv2"));

    // ---- Defaults for a QP created without explicit values (sweeps, examples) ----
    public static final Parameter<Long> QP_INITIATOR_QUEUE_DEPTH = add(integer("qp.initiatorQueueDepth", "128")
            .range("1", "4294967295").pow2().doc("Initiator queue depth of a QP created with defaults")
            .src(PERFTEST + ": tx depth 128"));
    public static final Parameter<Long> QP_RECEIVE_QUEUE_DEPTH = add(integer("qp.receiveQueueDepth", "512")
            .range("1", "4294967295").pow2().doc("Receive queue depth of a QP created with defaults")
            .src(PERFTEST + ": rx depth 512"));
    public static final Parameter<Long> QP_INITIATOR_REQUEST_SGE = add(integer("qp.initiatorRequestSge", "1")
            .range("1", "4294967295").doc("Initiator SGEs of a QP created with defaults").src(PERFTEST));
    public static final Parameter<Long> QP_RECEIVE_REQUEST_SGE = add(integer("qp.receiveRequestSge", "1")
            .range("1", "4294967295").doc("Receive SGEs of a QP created with defaults").src(PERFTEST));
    public static final Parameter<Long> QP_INLINE_DATA_SIZE = add(bytes("qp.inlineDataSize", "220B").range("0B", "4KiB")
            .doc("Inline data size of a QP created with defaults (4-BB WQE for an inline WRITE)")
            .src(PERFTEST + ": inline WRITE 220 B"));

    /** Known NDK_ADAPTER_FLAGS bits (ndkinfo.h). */
    static final long NDK_KNOWN_FLAGS = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x100 | 0x10000;
    /** A send WQE's control and remote-address segments, before data or inline segments (mlx5). */
    static final long WQE_HEADER_BYTES = 32;
    /**
     * Largest send ring in 64-byte basic blocks: the doorbell's 16-bit producer counter must tell a full ring
     * from an empty one, so a ring holds at most 2^15 blocks.
     */
    public static final long MAX_SEND_RING_BBS = 1 << 15;
    /** One data segment or one 16 B unit of an inline segment (mlx5). */
    static final long WQE_SEGMENT_BYTES = 16;
    /** The 4 B header of an inline segment (mlx5). */
    static final long INLINE_HEADER_BYTES = 4;

    private static final List<Parameter<?>> ALL_VIEW = Collections.unmodifiableList(ALL);
    private static final Map<String, Parameter<?>> BY_KEY = index();

    /** Cross-parameter rules; every {@link Profile} satisfies all of them. */
    public static final List<Rule> RULES = List.of(
            waysDivide(NIC_QPC_CACHE_ENTRIES, NIC_QPC_CACHE_WAYS),
            waysDivide(NIC_CQC_CACHE_ENTRIES, NIC_CQC_CACHE_WAYS),
            waysDivide(NIC_MKEY_CACHE_ENTRIES, NIC_MKEY_CACHE_WAYS),
            waysDivide(NIC_MTT_CACHE_ENTRIES, NIC_MTT_CACHE_WAYS),
            new Rule("ndk.maxInlineDataSize fits a WQE of nic.maxWqeBytes: 32 + align16(4 + inline) <= maxWqeBytes",
                    p -> {
                        long inline = p.getLong(NDK_MAX_INLINE_DATA_SIZE);
                        long wqe = p.getLong(NIC_MAX_WQE_BYTES);
                        long needed = WQE_HEADER_BYTES + align16(INLINE_HEADER_BYTES + inline);
                        return needed <= wqe ? null
                                : show(NDK_MAX_INLINE_DATA_SIZE, p) + " needs a " + needed + "B WQE but "
                                        + show(NIC_MAX_WQE_BYTES, p) + "; at most "
                                        + (wqe - WQE_HEADER_BYTES - INLINE_HEADER_BYTES) + "B fits";
                    }),
            sgesFit(NDK_MAX_INITIATOR_REQUEST_SGE, WQE_HEADER_BYTES),
            sgesFit(NDK_MAX_READ_REQUEST_SGE, WQE_HEADER_BYTES),
            sgesFit(NDK_MAX_RECEIVE_REQUEST_SGE, 0),
            atLeast(NIC_WQE_CACHE_ENTRIES, 64, NIC_WQE_FETCH_MAX_BYTES, "64 B blocks hold one WQE fetch"),
            atLeast(NIC_WQE_CACHE_ENTRIES, 64, NIC_MAX_WQE_BYTES, "64 B blocks hold the largest WQE"),
            atLeast(NIC_INLINE_BUFFER_BYTES, 1, NDK_MAX_INLINE_DATA_SIZE, "holds the largest inline payload"),
            notAbove(NDK_MAX_WINDOW_SIZE, NDK_MAX_REGISTRATION_SIZE),
            notAbove(TRANSPORT_ACK_COALESCE, TRANSPORT_MAX_UNACKED_PSNS),
            notAbove(LINK_PFC_XON, LINK_PFC_XOFF),
            notAbove(LINK_PFC_XOFF, LINK_PFC_FIFO),
            notAbove(TRANSPORT_MAX_INBOUND_READS, NDK_MAX_INBOUND_READ_LIMIT),
            notAbove(TRANSPORT_MAX_OUTBOUND_READS, NDK_MAX_OUTBOUND_READ_LIMIT),
            new Rule("a QP with every limit at its maximum fits the send ring: ndk.maxInitiatorQueueDepth x "
                    + "nic.maxWqeBytes / 64 <= 32768 basic blocks", p -> {
                        long bbs = p.getLong(NDK_MAX_INITIATOR_QUEUE_DEPTH) * (p.getLong(NIC_MAX_WQE_BYTES) / 64);
                        return bbs <= MAX_SEND_RING_BBS ? null
                                : show(NDK_MAX_INITIATOR_QUEUE_DEPTH, p) + " of " + show(NIC_MAX_WQE_BYTES, p)
                                        + " WQEs needs " + bbs + " basic blocks; the 16-bit WQE counter allows "
                                        + MAX_SEND_RING_BBS + ", so at most "
                                        + MAX_SEND_RING_BBS / (p.getLong(NIC_MAX_WQE_BYTES) / 64) + " WQEs";
                    }),
            notAbove(QP_INITIATOR_QUEUE_DEPTH, NDK_MAX_INITIATOR_QUEUE_DEPTH),
            notAbove(QP_RECEIVE_QUEUE_DEPTH, NDK_MAX_RECEIVE_QUEUE_DEPTH),
            notAbove(QP_INITIATOR_REQUEST_SGE, NDK_MAX_INITIATOR_REQUEST_SGE),
            notAbove(QP_RECEIVE_REQUEST_SGE, NDK_MAX_RECEIVE_REQUEST_SGE),
            notAbove(QP_INLINE_DATA_SIZE, NDK_MAX_INLINE_DATA_SIZE),
            new Rule("ndk.adapterFlags has only the bits ndkinfo.h defines (0x1011F)", p -> {
                long unknown = p.getLong(NDK_ADAPTER_FLAGS) & ~NDK_KNOWN_FLAGS;
                return unknown == 0 ? null
                        : show(NDK_ADAPTER_FLAGS, p) + " has unknown bits 0x"
                                + Long.toHexString(unknown).toUpperCase(java.util.Locale.ROOT);
            }));

    private Parameters() {
    }

    /** Every parameter, in registration (and print) order. */
    public static List<Parameter<?>> all() {
        return ALL_VIEW;
    }

    /** The parameter with this key, or null. */
    public static Parameter<?> byKey(String key) {
        return BY_KEY.get(key);
    }

    /** Up to three known keys closest to {@code key} (edit distance, also against the part after the dot). */
    public static List<String> closest(String key) {
        record Scored(String key, int distance, int order) {
        }
        List<Scored> scored = new ArrayList<>();
        String tail = key.substring(key.lastIndexOf('.') + 1);
        for (Parameter<?> p : ALL) {
            String k = p.key();
            String kTail = k.substring(k.lastIndexOf('.') + 1);
            int d = Math.min(distance(key.toLowerCase(java.util.Locale.ROOT), k.toLowerCase(java.util.Locale.ROOT)),
                    distance(tail.toLowerCase(java.util.Locale.ROOT), kTail.toLowerCase(java.util.Locale.ROOT)) + 1);
            scored.add(new Scored(k, d, p.index()));
        }
        scored.sort((a, b) -> a.distance != b.distance ? Integer.compare(a.distance, b.distance)
                : Integer.compare(a.order, b.order));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 3 && i < scored.size(); i++) {
            out.add(scored.get(i).key);
        }
        return out;
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int subst = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(subst, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private static Map<String, Parameter<?>> index() {
        Map<String, Parameter<?>> m = new LinkedHashMap<>();
        for (Parameter<?> p : ALL) {
            if (m.put(p.key(), p) != null) {
                throw new IllegalStateException("duplicate parameter key " + p.key());
            }
        }
        return Collections.unmodifiableMap(m);
    }

    private static long align16(long n) {
        return (n + WQE_SEGMENT_BYTES - 1) / WQE_SEGMENT_BYTES * WQE_SEGMENT_BYTES;
    }

    private static <T extends Comparable<T>> String show(Parameter<T> p, Profile profile) {
        return p.key() + " (" + p.format(profile.get(p)) + ")";
    }

    private static Rule waysDivide(Parameter<Long> entries, Parameter<Long> ways) {
        return new Rule(ways.key() + " divides " + entries.key(), p -> p.getLong(entries) % p.getLong(ways) == 0 ? null
                : show(ways, p) + " must divide " + show(entries, p));
    }

    private static Rule sgesFit(Parameter<Long> sges, long header) {
        String form = header == 0 ? "16 x " + sges.key() : header + " + 16 x " + sges.key();
        return new Rule(sges.key() + " data segments fit a WQE: " + form + " <= nic.maxWqeBytes", p -> {
            long needed = header + WQE_SEGMENT_BYTES * p.getLong(sges);
            long wqe = p.getLong(NIC_MAX_WQE_BYTES);
            return needed <= wqe ? null
                    : show(sges, p) + " needs a " + needed + "B WQE but " + show(NIC_MAX_WQE_BYTES, p)
                            + "; at most " + (wqe - header) / WQE_SEGMENT_BYTES + " fit";
        });
    }

    private static Rule atLeast(Parameter<Long> big, long scale, Parameter<Long> small, String why) {
        String lhs = scale == 1 ? big.key() : big.key() + " x " + scale;
        return new Rule(lhs + " >= " + small.key() + " (" + why + ")",
                p -> p.getLong(big) * scale >= p.getLong(small) ? null
                        : show(big, p) + " is too small: " + lhs + " must be >= " + show(small, p) + " (" + why + ")");
    }

    private static Rule notAbove(Parameter<Long> value, Parameter<Long> limit) {
        return new Rule(value.key() + " <= " + limit.key(), p -> p.getLong(value) <= p.getLong(limit) ? null
                : show(value, p) + " must not exceed " + show(limit, p));
    }

    private static <T extends Comparable<T>> Parameter<T> add(Parameter.Builder<T> b) {
        Parameter<T> p = b.build(ALL.size());
        ALL.add(p);
        return p;
    }

    private static Parameter.Builder<Long> integer(String key, String def) {
        return new Parameter.Builder<>(ValueType.INTEGER, key, def);
    }

    private static Parameter.Builder<Long> hex(String key, String def) {
        return new Parameter.Builder<>(ValueType.HEX, key, def);
    }

    private static Parameter.Builder<Boolean> bool(String key, String def) {
        return new Parameter.Builder<>(ValueType.BOOLEAN, key, def);
    }

    private static Parameter.Builder<String> choice(String key, String def) {
        return new Parameter.Builder<>(ValueType.CHOICE, key, def);
    }

    private static Parameter.Builder<Double> dbl(String key, String def) {
        return new Parameter.Builder<>(ValueType.DOUBLE, key, def);
    }

    private static Parameter.Builder<Long> bytes(String key, String def) {
        return new Parameter.Builder<>(ValueType.BYTES, key, def);
    }

    private static Parameter.Builder<Long> time(String key, String def) {
        return new Parameter.Builder<>(ValueType.TIME, key, def);
    }

    private static Parameter.Builder<Long> rate(String key, String def) {
        return new Parameter.Builder<>(ValueType.RATE, key, def);
    }

    private static Parameter.Builder<Long> frequency(String key, String def) {
        return new Parameter.Builder<>(ValueType.FREQUENCY, key, def);
    }
}
