package dev.rdmasim.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep's files are the same bytes whatever the parallelism and however the sweep was interrupted and resumed;
 * a directory of another sweep is refused.
 */
class SweepRunTest {
    /** Eight small points; dropped frames make every run depend on its seed's random streams. */
    private static final SweepSpec SPEC = SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "40"))
            .set("link.dropProbability=0.01").param("qp.initiatorQueueDepth=4,32").param("qp.inlineDataSize=0,64")
            .repeat(2).seed(11).build();
    private static final Sweep.Progress QUIET = (done, total, rate, left) -> { };

    @TempDir
    static Path shared;
    private static Path reference;
    private static Sweep.Outcome first;

    @TempDir
    Path dir;

    @BeforeAll
    static void runOnOneThread() throws IOException {
        reference = shared.resolve("one-thread");
        try (PointExecutor e = new LocalExecutor(1)) {
            first = Sweep.run(SPEC, reference, e, QUIET, List.of());
        }
    }

    private static void sameFiles(Path a, Path b) throws IOException {
        for (String f : List.of(Sweep.RESULTS_CSV, Sweep.RESULTS_JSON, Sweep.SPEC_FILE)) {
            assertThat(Files.readString(b.resolve(f))).as(f).isEqualTo(Files.readString(a.resolve(f)));
        }
    }

    @Test
    void theResultsAreOneRowPerPointInIndexOrder() throws IOException {
        assertThat(first.resumed()).isZero();
        assertThat(first.ran()).isEqualTo(8);
        List<String> csv = Files.readAllLines(reference.resolve(Sweep.RESULTS_CSV));
        assertThat(csv.get(0)).isEqualTo("qp.initiatorQueueDepth,qp.inlineDataSize,bw_avg_gbps,bw_peak_gbps,"
                + "msg_rate_mpps,lat_p50_us,lat_p99_us,lat_p999_us,sim_time_ps,seed,limited_by,limit_fraction");
        assertThat(csv).hasSize(9);
        assertThat(csv.subList(1, 9)).extracting(l -> {
            String[] c = l.split(",");
            return c[0] + "/" + c[1] + "@" + c[9];
        }).containsExactly("4/0@11", "4/0@12", "4/64@11", "4/64@12", "32/0@11", "32/0@12", "32/64@11", "32/64@12");
        assertThat(csv.subList(1, 9)).allSatisfy(l -> assertThat(l).doesNotContain("E", "NaN", " "));
        // What limits each point: the host CPU at depth 32 (its posts: build, BlueFlame chunks, fence), round
        // trips at depth 4.
        assertThat(csv.subList(1, 9)).extracting(l -> l.split(",")[10]).containsExactly("latency", "latency",
                "latency", "latency", "hostA.cpu", "hostA.cpu", "hostA.cpu", "hostA.cpu");
        assertThat(csv.subList(1, 9)).allSatisfy(l -> assertThat(Double.parseDouble(l.split(",")[11]))
                .isBetween(0.0, 1.0));
        assertThat(first.results().results()).extracting(r -> r.point().index()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(Files.readString(reference.resolve(Sweep.RESULTS_JSON))).contains("\"fingerprint\": \""
                + SPEC.fingerprint() + "\"", "\"bottleneck\": \"", "\"busy\": {",
                "\"limited_by\": {", "\"kind\": \"latency\"", "\"bounds\": {", "\"nicA.tx.fullFraction\": ").doesNotContain("wall");
        try (var files = Files.list(reference.resolve(Sweep.POINTS_DIR))) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted()).containsExactly("000000.json",
                    "000001.json", "000002.json", "000003.json", "000004.json", "000005.json", "000006.json",
                    "000007.json");
        }
    }

    @Test
    void fourThreadsGiveTheSameBytesAsOne() throws IOException {
        List<Integer> order = new ArrayList<>();
        try (PointExecutor e = new LocalExecutor(4)) {
            Sweep.run(SPEC, dir, e, (done, total, rate, left) -> order.add(done), List.of());
        }
        sameFiles(reference, dir);
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8);
    }

    /** Runs the first {@code n} points it is given, then stops as a killed run would. */
    private record Interrupted(PointExecutor inner, int n) implements PointExecutor {
        @Override
        public void execute(List<Point> points, Consumer<PointResult> onResult) {
            inner.execute(points.subList(0, Math.min(n, points.size())), onResult);
            throw new SweepFailure("killed");
        }

        @Override
        public int parallelism() {
            return inner.parallelism();
        }

        @Override
        public String describe() {
            return "interrupted";
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Test
    void aResumedSweepRunsOnlyWhatIsMissingAndWritesTheSameBytes() throws IOException {
        try (PointExecutor e = new Interrupted(new LocalExecutor(2), 3)) {
            assertThatThrownBy(() -> Sweep.run(SPEC, dir, e, QUIET, List.of())).hasMessage("killed");
        }
        assertThat(dir.resolve(Sweep.RESULTS_CSV)).doesNotExist();
        // What a kill in the middle of writing leaves: a temporary file, and (were the move not atomic) half a file.
        Path points = dir.resolve(Sweep.POINTS_DIR);
        Files.writeString(points.resolve("000005.json.tmp"), "{\"fingerpr");
        Files.writeString(points.resolve("000006.json"), "{\"fingerprint\" : \"" + SPEC.fingerprint());
        List<Integer> progress = new ArrayList<>();
        Sweep.Outcome resumed;
        try (PointExecutor e = new LocalExecutor(3)) {
            resumed = Sweep.run(SPEC, dir, e, (done, total, rate, left) -> progress.add(done), List.of());
        }
        assertThat(resumed.resumed()).isEqualTo(3);
        assertThat(resumed.ran()).isEqualTo(5);
        assertThat(progress).containsExactly(3, 4, 5, 6, 7, 8);
        assertThat(points.resolve("000005.json.tmp")).doesNotExist();
        sameFiles(reference, dir);
        // A finished sweep run again runs nothing and writes the same files.
        List<SweepResults> finished = new ArrayList<>();
        try (PointExecutor e = new LocalExecutor(1)) {
            Sweep.Outcome again = Sweep.run(SPEC, dir, e, QUIET, List.of((d, r) -> finished.add(r)));
            assertThat(again.ran()).isZero();
            assertThat(again.resumed()).isEqualTo(8);
        }
        sameFiles(reference, dir);
        assertThat(finished).hasSize(1);
        assertThat(finished.get(0).results()).extracting(r -> r.metrics())
                .isEqualTo(first.results().results().stream().map(PointResult::metrics).toList());
    }

    @Test
    void aDirectoryOfAnotherSweepIsRefused() throws IOException {
        SweepSpec other = SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "40")).set("link.dropProbability=0.01")
                .param("qp.initiatorQueueDepth=4,16").param("qp.inlineDataSize=0,64").repeat(2).seed(11).build();
        try (PointExecutor e = new LocalExecutor(1)) {
            assertThatThrownBy(() -> Sweep.run(other, reference, e, QUIET, List.of()))
                    .isInstanceOf(SweepSpecException.class).hasMessage(reference + " holds another sweep (its "
                            + "sweep.json describes different parameters, values, workload, profile, seed or repeat): "
                            + "give another --out directory, or delete it to start over");
            Files.createDirectories(dir.resolve(Sweep.POINTS_DIR));
            assertThatThrownBy(() -> Sweep.run(other, dir, e, QUIET, List.of()))
                    .isInstanceOf(SweepSpecException.class).hasMessage(dir + " holds sweep outputs but no sweep.json: "
                            + "give another --out directory, or delete it to start over");
        }
    }
}
