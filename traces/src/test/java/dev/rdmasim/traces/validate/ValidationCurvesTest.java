package dev.rdmasim.traces.validate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.traces.validate.Validation.Figure;
import dev.rdmasim.traces.validate.Validation.Measurement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValidationCurvesTest {

    private static Measurement row(String id, String profile, List<String> set, String test, int size, int inline,
                                   Figure figure) {
        return new Measurement(id, "synthetic " + id, profile, set, test, size, inline, 0, figure, 1.0, 10, "a test",
                false);
    }

    /** The shipped table: the ConnectX-4 send_lat sizes form one group, the other figures none. */
    @Test
    void theShippedTableGroupsRowsThatShareASetup() {
        List<Validation.Group> groups = Validation.groups(Validation.table());
        assertThat(groups).extracting(Validation.Group::label).contains("cx5 write_lat", "cx5 send_lat",
                "cx5 write_bw", "cx5 read_bw", "cx5 send_bw", "cx4 send_lat");
        Validation.Group cx4 = groups.stream().filter(g -> g.label().equals("cx4 send_lat")).findFirst().orElseThrow();
        assertThat(cx4.rows()).extracting(Measurement::size).containsExactly(32, 1024, 4096, 32768);
        assertThat(cx4.figure()).isEqualTo(Figure.LAT_TYPICAL_US);
        assertThat(groups).flatExtracting(Validation.Group::rows).extracting(Measurement::figure)
                .containsOnly(Figure.LAT_TYPICAL_US, Figure.BW_AVG_GBPS);
    }

    /**
     * A new group appears with no code change: rows are grouped by hardware (the id's first word), profile,
     * settings, test, inline threshold and figure, and a difference in any of them starts a new group.
     */
    @Test
    void newRowsFormTheirOwnGroupsByTheirSetup() {
        List<String> x8 = List.of("pcie.lanes=8");
        List<Measurement> ms = new ArrayList<>(List.of(
                row("nic7-read-lat-64", "cx5-like", x8, "read_lat", 64, -1, Figure.LAT_TYPICAL_US),
                row("nic7-read-lat-4k", "cx5-like", x8, "read_lat", 4096, -1, Figure.LAT_TYPICAL_US),
                row("nic7-rate-64", "cx5-like", x8, "write_bw", 64, -1, Figure.MSG_RATE_MPPS),
                row("nic7-read-lat-100", "cx5-like", List.of(), "read_lat", 100, -1, Figure.LAT_TYPICAL_US),
                row("nic8-read-lat-64", "cx5-like", x8, "read_lat", 64, -1, Figure.LAT_TYPICAL_US),
                row("nic7-write-bw-3m", "cx5-like", x8, "write_bw", 3 << 20, 0, Figure.BW_AVG_GBPS),
                row("nic7-read-lat-1m", "cx5-like", x8, "read_lat", 1 << 20, -1, Figure.LAT_TYPICAL_US)));
        List<Validation.Group> g = Validation.groups(ms);
        assertThat(g).extracting(Validation.Group::label).containsExactly("nic7 read_lat", "nic7 read_lat",
                "nic8 read_lat", "nic7 write_bw");
        assertThat(g.get(0).rows()).extracting(Measurement::id).containsExactly("nic7-read-lat-64",
                "nic7-read-lat-4k", "nic7-read-lat-1m");
        assertThat(g.get(1).set()).isEmpty();
        // Powers of two from 2 B up to the largest row, every row's own size among them.
        assertThat(g.get(0).sizes()).first().isEqualTo(2);
        assertThat(g.get(0).sizes()).last().isEqualTo(1 << 20);
        assertThat(g.get(0).sizes()).hasSize(20);
        // A row between powers of two keeps its size; the curve still reaches 64 KiB.
        assertThat(g.get(1).sizes()).contains(64, 100, 128, Validation.CURVE_MIN_TOP).isSorted()
                .allMatch(s -> s <= Validation.CURVE_MIN_TOP);
        assertThat(g.get(3).sizes()).contains(2 << 20, 3 << 20).last().isEqualTo(3 << 20);
        // Perftest's default iterations, capped for the curve; a row's own count when lower.
        assertThat(g.get(0).iterations()).isEqualTo(Validation.CURVE_ITERATIONS);
    }

    /**
     * The ConnectX-4 send_lat curve: a point at every power of two from 2 B to 64 KiB and at each row's size, where
     * it is that row's figure; a curve point run at a row's size (with the curve's iterations) gives the same
     * figure, so the line passes through the rows rather than jumping to them; latency grows with the size.
     */
    @Test
    void aCurvePassesThroughItsRows() {
        List<Validation.Row> rows = Validation.table().stream().filter(m -> m.id().startsWith("cx4-send-lat-"))
                .map(Validation::run).toList();
        List<Validation.Curve> curves = Validation.curves(rows, List.of());
        assertThat(curves).hasSize(1);
        Validation.Curve c = curves.get(0);
        assertThat(c.sizes()).startsWith(2, 4, 8, 16, 32, 64).endsWith(32768, 65536).hasSize(16);
        for (Validation.Row r : rows) {
            assertThat(c.model().get(c.sizes().indexOf(r.m().size()))).as(r.m().id()).isEqualTo(r.model());
            Measurement again = new Measurement(r.m().id(), r.m().what(), r.m().profile(), r.m().set(), r.m().test(),
                    r.m().size(), r.m().inline(), c.group().iterations(), r.m().figure(), r.m().hardware(),
                    r.m().tolerance(), r.m().source(), false);
            assertThat(Validation.run(again).model()).as("%s at %d iterations", r.m().id(), c.group().iterations())
                    .isEqualTo(r.model());
        }
        for (int i = 1; i < c.sizes().size(); i++) {
            assertThat(c.model().get(i)).as("%d B", c.sizes().get(i)).isGreaterThanOrEqualTo(c.model().get(i - 1));
        }
    }
}
