package dev.rdmasim.traces.replay;

import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Replays a large generated trace in its own JVM so a test can bound the heap: {@code gen FILE BLOCKS} writes
 * the trace, {@code replay FILE DIR} replays it (without lifecycle.csv, which would hold a row per request) and
 * prints {@code calls=N completions=N bytes=N events=N peakHeapMiB=N maxHeapMiB=N wallS=S replayThreadCpuS=S}.
 */
public final class ReplayScaleMain {
    /** Requests per block: fifteen unsignaled inline WRITEs and a signaled one. */
    static final int PER_BLOCK = 16;

    private ReplayScaleMain() {
    }

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[1]);
        if (args[0].equals("gen")) {
            generate(file, Integer.parseInt(args[2]));
            return;
        }
        long wall = System.nanoTime();
        ReplayResult r = Replay.run(file, ReplayOptions.into(Path.of(args[2])).withoutLifecycle());
        double wallS = (System.nanoTime() - wall) / 1e9;
        double cpuS = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1e9;
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        System.out.println("calls=" + r.calls() + " completions=" + r.completions() + " bytes=" + r.bytes()
                + " events=" + r.events() + " peakHeapMiB=" + peak / (1 << 20) + " maxHeapMiB="
                + Runtime.getRuntime().maxMemory() / (1 << 20)
                + String.format(java.util.Locale.ROOT, " wallS=%.1f replayThreadCpuS=%.1f", wallS, cpuS));
    }

    /**
     * Writes {@code blocks} blocks of {@link #PER_BLOCK} 64-byte WRITEs, each block's last one signaled and
     * waited for, as explicit lines (the file grows with the request count, about 250 bytes a block).
     */
    static void generate(Path file, int blocks) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("rdmasim-trace 1\n"
                    + "host A profile=default\n"
                    + "host B\n"
                    + "cq A.cq depth=64\n"
                    + "cq B.cq depth=64\n"
                    + "pd A.pd\n"
                    + "pd B.pd\n"
                    + "mr A.src pd=A.pd size=64KiB access=LOCAL_WRITE fill=pattern:7\n"
                    + "mr B.dst pd=B.pd size=64KiB access=LOCAL_WRITE|REMOTE_WRITE\n"
                    + "qp A.qp pd=A.pd rcq=A.cq icq=A.cq iq=128 rq=16 isge=1 rsge=1 inline=64\n"
                    + "qp B.qp pd=B.pd rcq=B.cq icq=B.cq iq=16 rq=16 isge=1 rsge=1 inline=0\n"
                    + "connect A.qp B.qp port=7471\n");
            for (int b = 0; b < blocks; b++) {
                int at = b % 64 * 1024;
                w.write("repeat " + (PER_BLOCK - 1) + " as j\n  write A.qp ctx=s sge=A.src+" + at + ":64 remote=B.dst+"
                        + "${" + at + "+j*64} flags=INLINE|SILENT_SUCCESS\nend\nwrite A.qp ctx=w" + b + " sge=A.src+" + at
                        + ":64 remote=B.dst+" + (at + 960) + " flags=INLINE\nwait A.cq ctx=w" + b + "\n");
            }
        }
    }
}
