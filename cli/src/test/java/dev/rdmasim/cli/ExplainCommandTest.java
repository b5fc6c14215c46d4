package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rdmasim explain}: the stages of one request, in order, at the times lifecycle.csv gives them. */
class ExplainCommandTest {
    private static final Path EXAMPLES = Path.of("..", "traces", "examples");
    private static final String[] STAGES = {"posted", "doorbell", "WQE in the adapter", "payload read", "first packet",
        "last packet", "placed at the peer", "acknowledged", "CQE written", "polled"};

    @TempDir
    Path dir;

    /** The lifecycle.csv row of {@code ctx}, from a plain replay of {@code trace}. */
    private String[] lifecycle(String trace, String ctx) throws IOException {
        Path out = dir.resolve(trace);
        assertThat(Cli.run("replay", EXAMPLES.resolve(trace).toString(), "--out", out.toString()).code()).isZero();
        for (String row : Files.readAllLines(out.resolve("lifecycle.csv"))) {
            String[] f = row.split(",", -1);
            if (f[2].equals(ctx)) {
                return f;
            }
        }
        throw new AssertionError("no lifecycle row for " + ctx);
    }

    /** The stage lines of an explanation: each starts with its time ("-" when skipped) and names its stage. */
    private static List<String> stageLines(String out) {
        List<String> lines = new ArrayList<>();
        for (String l : out.split("\n")) {
            if (l.startsWith("at host ")) {
                break; // the receiver's side follows
            }
            if (l.startsWith("  ") && !l.trim().startsWith("time") && !l.trim().startsWith("post to poll")) {
                lines.add(l);
            }
        }
        return lines;
    }

    private static String ns(String ps) {
        long v = Long.parseLong(ps);
        return String.format("%d.%03d ns", v / 1000, v % 1000);
    }

    private void assertMatchesLifecycle(Cli c, String[] row) {
        List<String> lines = stageLines(c.out());
        assertThat(lines).hasSize(STAGES.length);
        for (int i = 0; i < STAGES.length; i++) {
            String line = lines.get(i);
            assertThat(line).as("stage %d", i).contains(" " + STAGES[i] + ": ");
            String t = row[4 + i];
            assertThat(line.trim()).as(STAGES[i]).startsWith(t.isEmpty() ? "-" : ns(t));
        }
    }

    @Test
    void quickstartRequestOneGoesThroughEveryStageAtItsLifecycleTimes() throws IOException {
        Cli c = Cli.run("explain", EXAMPLES.resolve("quickstart.trace").toString(), "--request", "1");
        assertThat(c.code()).as(c.err()).isZero();
        assertThat(c.out()).startsWith("request 1 of ").contains("write on A.qp, ctx=hello, 4096 B");
        assertMatchesLifecycle(c, lifecycle("quickstart.trace", "hello"));
        // 4 KiB over a 1 KiB MTU: four frames, named by their opcodes; the blocks are named.
        assertThat(c.out()).contains("4 frames: RDMA WRITE First, 2 Middle, RDMA WRITE Last")
                .contains("nicA.tx").contains("nicA.req").contains("nicB.rx").contains("nicA.cqe")
                .contains("no WQE fetch: the WQE came whole through BlueFlame");
    }

    @Test
    void inlineAndDmaRequestsAreExplainedApart() throws IOException {
        Cli dma = Cli.run("explain", EXAMPLES.resolve("inline-vs-dma.trace").toString(), "--ctx", "dma");
        assertThat(dma.code()).as(dma.err()).isZero();
        assertThat(dma.out()).startsWith("request 2 of ");
        assertMatchesLifecycle(dma, lifecycle("inline-vs-dma.trace", "dma"));
        assertThat(dma.out()).contains("DMA-read the first packet's payload (64 B)").doesNotContain("INLINE put");

        Cli inline = Cli.run("explain", EXAMPLES.resolve("inline-vs-dma.trace").toString(), "--request", "3");
        assertThat(inline.code()).as(inline.err()).isZero();
        assertThat(inline.out()).contains("ctx=inline").contains("flags INLINE");
        assertMatchesLifecycle(inline, lifecycle("inline-vs-dma.trace", "inline"));
        assertThat(inline.out()).contains("no payload read: INLINE put the 64 B in the WQE itself")
                .contains("no WQE fetch: the WQE came whole through BlueFlame");
    }

    @Test
    void howTheWqeCameIsReadFromTheRecordedStagesNotGuessedFromTiming() throws IOException {
        // Posted alone, the WQE goes by BlueFlame: the adapter records no fetch, and explain says so.
        String[] bf = lifecycle("quickstart.trace", "hello");
        assertThat(bf[6]).as("wqe_fetched of a BlueFlame WQE").isEmpty();
        // Posted with DEFER, the WQEs wait for one doorbell and are fetched by DMA.
        String[] fetched = lifecycle("doorbell-batching.trace", "batched0");
        assertThat(fetched[6]).as("wqe_fetched of a fetched WQE").isNotEmpty();
        Cli c = Cli.run("explain", EXAMPLES.resolve("doorbell-batching.trace").toString(), "--ctx", "batched0");
        assertThat(c.code()).as(c.err()).isZero();
        assertMatchesLifecycle(c, fetched);
        assertThat(c.out()).contains("the CPU rang the doorbell with an 8 B MMIO store")
                .contains("nicA.fetch").contains("the fetch engine DMA-read the WQE").doesNotContain("BlueFlame");
    }

    @Test
    void thePollStageShowsThePollCallsCpuTime() throws IOException {
        String[] row = lifecycle("quickstart.trace", "hello");
        long cqe = Long.parseLong(row[12]);
        long polled = Long.parseLong(row[13]);
        // host.pollTime is 20 ns by default: the poll call returns at least that long after the CQE landed.
        assertThat(polled - cqe).as("poll after CQE").isGreaterThanOrEqualTo(20_000);
        Cli c = Cli.run("explain", EXAMPLES.resolve("quickstart.trace").toString(), "--request", "1");
        String poll = stageLines(c.out()).get(STAGES.length - 1);
        assertThat(poll).contains("hostA.cpu").contains("host.pollTime").doesNotContain("+0.000 ns");
    }

    @Test
    void aSendIsFollowedToTheReceiveItConsumedAndThatReceivesCqe() throws IOException {
        String[] send = lifecycle("pingpong.trace", "ping0");
        String[] recv = lifecycle("pingpong.trace", "b0");
        assertThat(recv[3]).isEqualTo("receive");
        Cli c = Cli.run("explain", EXAMPLES.resolve("pingpong.trace").toString(), "--ctx", "ping0");
        assertThat(c.code()).as(c.err()).isZero();
        assertMatchesLifecycle(c, send);
        assertThat(c.out()).contains("at host B: the message consumed receive ctx=b0 on B.qp")
                .contains(ns(recv[10]) + " ").contains(ns(recv[12]) + " ").contains(ns(recv[13]) + " ")
                .contains("nicB.rx    placed").contains("nicB.cqe").contains("hostB.cpu").contains("receive CQE written");
        // Receives are not initiator requests: they are neither counted nor matched.
        Cli none = Cli.run("explain", EXAMPLES.resolve("pingpong.trace").toString(), "--ctx", "b0");
        assertThat(none.code()).isEqualTo(2);
        Cli write = Cli.run("explain", EXAMPLES.resolve("quickstart.trace").toString(), "--request", "1");
        assertThat(write.out()).doesNotContain("consumed receive");
    }

    @Test
    void aRequestThatDoesNotExistIsAOneLineUsageError() {
        Cli c = Cli.run("explain", EXAMPLES.resolve("inline-vs-dma.trace").toString(), "--request", "4");
        assertThat(c.code()).isEqualTo(2);
        assertThat(c.err().strip()).isEqualTo("rdmasim: no request 4: " + EXAMPLES.resolve("inline-vs-dma.trace")
                + " posts 3 initiator requests").doesNotContain("\n");
        Cli zero = Cli.run("explain", EXAMPLES.resolve("quickstart.trace").toString(), "--request", "0");
        assertThat(zero.code()).isEqualTo(2);
        assertThat(zero.err().strip()).isEqualTo("rdmasim: --request counts from 1, got 0");
        Cli ctx = Cli.run("explain", EXAMPLES.resolve("quickstart.trace").toString(), "--ctx", "nope");
        assertThat(ctx.code()).isEqualTo(2);
        assertThat(ctx.err().strip()).startsWith("rdmasim: no initiator request with ctx=nope").doesNotContain("\n");
    }
}
