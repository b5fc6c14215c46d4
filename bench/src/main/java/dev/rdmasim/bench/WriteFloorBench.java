package dev.rdmasim.bench;

import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.format.SendWqeParser;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.wire.FrameCheck;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.adapter.wire.RoceWriter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The byte work one simulated 64 B RDMA WRITE cannot avoid, with the model's own codecs and host memory and nothing
 * else: no events, no timing, no statistics, no lookups. The driver builds the WQE in the send ring; the adapter
 * reads it and the payload from host memory and parses the WQE; the requester builds the RoCEv2 frame with its
 * ICRC; the responder checks it and writes the payload into the peer's memory, then builds the ACK, which the
 * requester checks; the CQE is written to the CQ ring and the driver reads it back. One operation is one WRITE.
 *
 * <p>It bounds what {@link AdapterWriteBench} can reach on a machine: the full model does all of this plus about
 * ten events, the PCIe and Ethernet timing, the caches and key checks, and the statistics.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = BenchJvm.GC)
public class WriteFloorBench {
    private static final int BYTES = 64;
    private static final int RING_LOG_BBS = 7;
    private static final int CQ_LOG = 7;
    private static final int QPN = 0x11;
    private static final int LKEY = 0x100;
    private static final int RKEY = 0x200;

    private final HostMemory hostA = new HostMemory("hostA");
    private final HostMemory hostB = new HostMemory("hostB");
    private long ringAddr;
    private long cqAddr;
    private long srcAddr;
    private long dstAddr;

    private final byte[] ring = new byte[64 << RING_LOG_BBS];
    private SendWqeBuilder builder;
    private final SendWqeParser parser = new SendWqeParser(4);
    private final byte[] wqe = new byte[64];
    private final byte[] payload = new byte[BYTES];
    private final RoceWriter dataWriter = new RoceWriter();
    private final RoceWriter ackWriter = new RoceWriter();
    private final RoceReader reader = new RoceReader();
    private final byte[] frame = new byte[256];
    private final byte[] ack = new byte[128];
    private final byte[] cqe = new byte[64];
    private final byte[] polled = new byte[64];
    private int index;

    /** The peer's memory, for checks. */
    HostMemory hostB() {
        return hostB;
    }

    /** Where WRITE number {@code i} lands in the peer's memory. */
    long destination(int i) {
        return dstAddr + (long) (i & 4095) * BYTES;
    }

    @Setup
    public void setUp() {
        ringAddr = hostA.allocate(ring.length, 4096);
        cqAddr = hostA.allocate(64 << CQ_LOG, 4096);
        srcAddr = hostA.allocate(1 << 20, 4096);
        dstAddr = hostB.allocate(1 << 20, 4096);
        hostA.fill(srcAddr, 1 << 20, (byte) 0x5A);
        hostB.fill(dstAddr, 1 << 20, (byte) 0);
        hostA.fill(cqAddr, 64 << CQ_LOG, (byte) 0);
        builder = new SendWqeBuilder(ring, 0, RING_LOG_BBS);
        parser.setLimits(4, 256, 16);
        dataWriter.macs(0x020000000002L, 0x020000000001L).ipv4(0x0A000001, 0x0A000002)
                .bth(Opcode.RDMA_WRITE_ONLY, QPN, 0).ackRequest(true);
        ackWriter.macs(0x020000000001L, 0x020000000002L).ipv4(0x0A000002, 0x0A000001)
                .bth(Opcode.ACKNOWLEDGE, QPN, 0);
    }

    /** One WRITE's bytes, end to end; returns a value derived from every stage so none is optimised away. */
    @Benchmark
    public int write() {
        int i = index++;
        int slot = i & ((1 << RING_LOG_BBS) - 1);
        long offset = (long) (i & 4095) * BYTES;
        // Driver: WQE into the ring buffer, then into host memory (the ring lives there).
        builder.begin(i & 0xFFFF, WqeOpcode.RDMA_WRITE, QPN, 0x08, 0)
                .remoteAddress(dstAddr + offset, RKEY).data(srcAddr + offset, BYTES, LKEY).finish();
        hostA.write(ringAddr + slot * 64L, ring, slot * 64, 64);
        // Adapter A: WQE fetch and parse, payload read, frame with ICRC.
        hostA.read(ringAddr + slot * 64L, wqe, 0, 64);
        if (parser.parse(wqe, 0) != 0) {
            throw new IllegalStateException("bad WQE: " + parser.error());
        }
        hostA.read(parser.sges().address(0), payload, 0, BYTES);
        dataWriter.bth(Opcode.RDMA_WRITE_ONLY, QPN, i & 0xFFFFFF).reth(parser.remoteAddress(), parser.rkey(), BYTES);
        int len = dataWriter.write(frame, payload, 0, BYTES);
        // Adapter B: checks (ICRC, IPv4 checksum), payload placed, ACK built.
        if (reader.wrap(frame, len) != FrameCheck.VALID) {
            throw new IllegalStateException("bad frame");
        }
        hostB.write(reader.rethVirtualAddress(), frame, reader.payloadOffset(), reader.payloadLength());
        ackWriter.bth(Opcode.ACKNOWLEDGE, QPN, reader.psn()).aeth(0, i & 0xFFFFFF);
        int ackLen = ackWriter.write(ack, 0);
        // Adapter A: ACK checked, CQE written; driver polls it.
        if (reader.wrap(ack, ackLen) != FrameCheck.VALID) {
            throw new IllegalStateException("bad ACK");
        }
        int c = i & ((1 << CQ_LOG) - 1);
        Cqe.writeSuccess(cqe, 0, Cqe.REQ, QPN, WqeOpcode.RDMA_WRITE, i & 0xFFFF, BYTES, 0, false,
                Cqe.ownerBit(i, CQ_LOG));
        hostA.write(cqAddr + c * 64L, cqe, 0, 64);
        hostA.read(cqAddr + c * 64L, polled, 0, 64);
        return Cqe.wqeCounter(polled, 0) + reader.aethMsn();
    }
}
