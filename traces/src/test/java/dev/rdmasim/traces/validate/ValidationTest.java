package dev.rdmasim.traces.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.traces.perf.LatResult;
import dev.rdmasim.traces.perf.Perf;
import dev.rdmasim.traces.perf.PerfOptions;
import dev.rdmasim.traces.perf.PerfTest;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ValidationTest {

    @Test
    void theShippedTableIsWellFormed() {
        List<Validation.Measurement> t = Validation.table();
        assertThat(t).hasSizeGreaterThanOrEqualTo(10);
        Set<String> ids = new HashSet<>();
        for (Validation.Measurement m : t) {
            assertThat(ids.add(m.id())).as("id %s is unique", m.id()).isTrue();
            assertThat(m.what()).isNotBlank();
            assertThat(m.source()).isNotBlank();
            // Every profile and setting it names exists: loading it with the settings must not throw.
            Profiles.load(m.profile()).withOverrides(m.set());
        }
    }

    /** A row's model figure is what the perf run of its setup gives, and the error and verdict follow from it. */
    @Test
    void aRowIsThePerfRunOfItsSetup() {
        Validation.Measurement m = Validation.table().stream().filter(x -> x.id().equals("cx5-write-lat-8")).findFirst()
                .orElseThrow();
        Validation.Row r = Validation.run(m);
        LatResult direct = (LatResult) Perf.run(PerfOptions.builder(PerfTest.WRITE_LAT,
                Profiles.load("cx5-like").withOverrides(List.of("pcie.lanes=8"))).size(8).build()).get(0);
        assertThat(r.model()).isEqualTo(direct.tTypicalUs());
        assertThat(r.errorPct()).isCloseTo((r.model() - 0.99) / 0.99 * 100, within(1e-9));
        assertThat(r.within()).isEqualTo(Math.abs(r.errorPct()) <= 15);
        String md = Validation.markdown(List.of(r));
        assertThat(md).contains("| cx5-write-lat-8 |").contains("0.990 us").contains(r.within() ? "| ok |" : "| OUT |")
                .contains("of 1 figures within their tolerance");
    }

    @Test
    void thePcieRowReportsTheIdleReadLatencyInNanoseconds() {
        Validation.Measurement m = Validation.table().stream().filter(x -> x.id().equals("pcie-read-64")).findFirst()
                .orElseThrow();
        Validation.Row r = Validation.run(m);
        // The profile's idle 64 B read is two link flights, two serializations and the host latency: ~0.55-0.6 us.
        assertThat(r.model()).isBetween(500.0, 700.0);
    }

    /** The rows the shipped profiles are calibrated on stay within their tolerance: a change that moves one fails. */
    @Test
    void everyCalibratedRowIsWithinItsTolerance() {
        List<Validation.Measurement> calibrated = Validation.table().stream().filter(Validation.Measurement::calibrated)
                .toList();
        assertThat(calibrated).as("rows marked calibrated").isNotEmpty();
        for (Validation.Measurement m : calibrated) {
            Validation.Row r = Validation.run(m);
            assertThat(r.within()).as("%s: hardware %s, model %s (%+.1f %%, tolerance %s %%)", m.id(), m.hardware(),
                    r.model(), r.errorPct(), m.tolerance()).isTrue();
        }
    }
}
