package dev.rdmasim.adapter.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The per-WQE / per-CQE paths (build, doorbell, parse, CQE write, poll) allocate nothing. */
class FormatAllocationTest {
    @Test
    void hotPathsAllocateNothingPerEntry() {
        byte[] sq = new byte[16 * 64];
        byte[] cq = new byte[16 * 64];
        byte[] rq = new byte[16 * 64];
        byte[] dbr = new byte[8];
        byte[] payload = new byte[100];
        SendWqeBuilder builder = new SendWqeBuilder(sq, 0, 4);
        SendWqeParser parser = new SendWqeParser(4);
        RecvWqe.Parser recv = new RecvWqe.Parser(4);
        OwnedRingPoller poller = OwnedRingPoller.forCq(cq, 0, 4);
        Cqe.initRing(cq, 0, 16);
        long[] sink = new long[1];
        int[] index = new int[1];
        long[] producer = new long[1];
        Runnable work = () -> {
            for (int i = 0; i < 20_000; i++) {
                int idx = index[0];
                int bbs = (i & 1) == 0
                    ? builder.begin(idx, WqeOpcode.RDMA_WRITE, 7, ControlSegment.FLAG_CQ_UPDATE, 0)
                        .remoteAddress(i, 1).inlineData(payload, 0, 1 + (i & 63)).finish()
                    : builder.begin(idx, WqeOpcode.SEND, 7, 0, 0).data(i, 64, 2).data(i + 64, 64, 2).finish();
                Doorbells.putSendCounter(dbr, 0, idx + bbs);
                sink[0] += Doorbells.sqDoorbell(sq, builder.lastCtrlOffset());
                sink[0] += parser.parse(sq, 0, sq.length, (idx * 64) & (sq.length - 1), 7, idx);
                sink[0] += parser.totalLength();
                index[0] = (idx + bbs) & 0xffff;

                RecvWqe.writeSge(rq, (i & 15) * 64, 0, i, 128, 3);
                RecvWqe.terminate(rq, (i & 15) * 64, 1, 4);
                sink[0] += recv.parse(rq, (i & 15) * 64, 4, 4);

                long p = producer[0]++;
                Cqe.writeSuccess(cq, Cqe.entryOffset(p, 4), Cqe.REQ, 7, WqeOpcode.SEND, idx, 0, 0, false,
                    Cqe.ownerBit(p, 4));
                while (poller.poll()) {
                    sink[0] += Cqe.wqeCounter(cq, poller.entryOffset());
                    poller.advance();
                }
            }
        };
        work.run(); // warm up (JIT, class loading)
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        work.run();
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // One object per entry would be at least 320 KB; the slack covers one-off JVM bookkeeping.
        assertThat(allocated).as("bytes allocated by 20k WQE/CQE round trips").isLessThan(16 * 1024);
        assertThat(poller.consumerIndex()).isEqualTo(producer[0]);
    }
}
