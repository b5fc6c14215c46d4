package dev.rdmasim.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class AdapterDemoTest {
    static Iterable<String> profiles() {
        return Profiles.names();
    }

    /** Every shipped profile streams 4 KiB WRITEs to completion at a sensible fraction of its line rate. */
    @ParameterizedTest
    @MethodSource("profiles")
    void everyShippedProfileStreamsWritesNearLineRate(String name, @TempDir Path dir) throws Exception {
        Profile profile = Profiles.load(name);
        // A glob that selects a few seldom-changing signals keeps the waveform small.
        AdapterDemo.Result r = AdapterDemo.run(dir, 1, profile, 4096, 300, 32, "*.stalled");
        assertThat(r.messages()).isGreaterThanOrEqualTo(300);
        double line = profile.getLong(Parameters.LINK_RATE) / 1e9;
        assertThat(r.gbps()).as("%s: %.1f Gb/s on a %.0f Gb/s link", name, r.gbps(), line).isBetween(0.5 * line, line);
        assertThat(r.p50Ns()).isPositive();
    }
}
