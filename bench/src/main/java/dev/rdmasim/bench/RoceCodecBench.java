package dev.rdmasim.bench;

import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.FrameCheck;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceLayout;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.adapter.wire.RoceWriter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of the RoCEv2 codec per frame, as the adapter uses it: building an RDMA WRITE ONLY with a
 * {@code payload}-byte payload (headers, IPv4 checksum, ICRC) and checking it on receipt then reading the
 * fields a responder needs; the same for an ACK. One operation is one frame.
 *
 * <pre>java -jar bench/target/benchmarks.jar RoceCodecBench -f 1 -wi 2 -i 3</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchJvm.GC)
public class RoceCodecBench {
    @Param({"64", "4096"})
    public int payload;

    private final RoceWriter writer = new RoceWriter()
            .macs(0x02_00_00_00_00_0BL, 0x02_00_00_00_00_0AL)
            .ipv4(0x0A000001, 0x0A000002)
            .udpSourcePort(RoceWriter.entropyPort(0x11, 0x22));
    private final RoceReader reader = new RoceReader();
    private final byte[] data = new byte[RoceLayout.MAX_PAYLOAD];
    private final byte[] write = new byte[RoceLayout.MAX_FRAME];
    private final byte[] ack = new byte[RoceLayout.MAX_FRAME];
    private int writeLength;
    private int ackLength;
    private int psn;

    @Setup
    public void setup() {
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        writeLength = buildWrite();
        ackLength = buildAck();
    }

    private int buildWrite() {
        psn = (psn + 1) & 0xFFFFFF;
        writer.bth(Opcode.RDMA_WRITE_ONLY, 0x22, psn).ackRequest(true).reth(0x7F00_0000_1000L, 0x1234, payload);
        return writer.write(write, data, 0, payload);
    }

    private int buildAck() {
        writer.bth(Opcode.ACKNOWLEDGE, 0x11, psn).ackRequest(false).aeth(Aeth.ack(Aeth.CREDITS_INVALID), psn);
        return writer.write(ack, 0);
    }

    @Benchmark
    public int writeRequest() {
        return buildWrite();
    }

    @Benchmark
    public long readRequest() {
        if (reader.wrap(write, writeLength) != FrameCheck.VALID) {
            throw new IllegalStateException("invalid frame");
        }
        return reader.opcode() + reader.destQp() + reader.psn() + (reader.ackRequest() ? 1 : 0)
                + reader.rethVirtualAddress() + reader.rethRkey() + reader.rethDmaLength()
                + reader.payloadOffset() + reader.payloadLength();
    }

    @Benchmark
    public int writeAck() {
        return buildAck();
    }

    @Benchmark
    public long readAck() {
        if (reader.wrap(ack, ackLength) != FrameCheck.VALID) {
            throw new IllegalStateException("invalid frame");
        }
        return reader.opcode() + reader.destQp() + reader.psn() + reader.aethSyndrome() + reader.aethMsn();
    }
}
