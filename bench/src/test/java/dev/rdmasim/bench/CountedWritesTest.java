package dev.rdmasim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.ProfileException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The counted run really completes the WRITEs it is asked for, so an instruction count can be divided by them. */
class CountedWritesTest {
    @Test
    void theModelCompletesEachStretchOfWrites() {
        CountedWrites.Model m = new CountedWrites.Model(Profile.defaults(), 64, 128);
        long events = 0;
        for (int i = 1; i <= 4; i++) {
            m.run(500);
            // The poller drains every CQE that has landed: at most the WRITEs outstanding beyond the target.
            assertThat(m.stream.completed()).isBetween(500L * i, 500L * i + 128);
            assertThat(m.sim.eventsExecuted()).isGreaterThan(events);
            events = m.sim.eventsExecuted();
        }
        // 64 B WRITEs cost about nine events each (AdapterSpeed's figure); far fewer would mean nothing ran.
        assertThat(events / m.stream.completed()).isBetween(5L, 20L);
    }

    @Test
    void largeWritesAndTheFloorRunThroughMain() {
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            CountedWrites.main(new String[] {"model", "2", "3", "65536", "4"});
            CountedWrites.main(new String[] {"floor", "10", "20"});
            CountedWrites.main(new String[] {"link", "5000", "3000"});
        } finally {
            System.setOut(out);
        }
        String text = buf.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("model: 3 WRITEs after 2").contains("completed ");
        assertThat(text).contains("floor: 20 WRITEs after 10").contains("check ");
        // Whole invocations of 1,024 TLPs: 5 for the warm-up, 3 more counted, so 8,192 handed over in all (or a few
        // more when the last event of an invocation hands over several).
        Matcher m = Pattern.compile("link: 3000 TLPs after 5000, .* completed (\\d+)").matcher(text);
        assertThat(m.find()).as(text).isTrue();
        assertThat(Long.parseLong(m.group(1))).isBetween(8192L, 8192L + 16);
    }

    @Test
    void settingsChangeTheProfileTheWritesRunOn() {
        // 64 KiB WRITEs: with 1 KiB payloads and completions, and 4 KiB read requests, a KiB takes 2.25 TLPs instead
        // of 10, and the events per WRITE fall with them.
        CountedWrites.Model plain = new CountedWrites.Model(Profile.defaults(), 65536, 4);
        CountedWrites.Model fewer = new CountedWrites.Model(Profile.defaults()
                .withOverrides(List.of("pcie.mps=1024B", "pcie.mrrs=4096B", "pcie.rcb=128B")), 65536, 4);
        plain.run(20);
        fewer.run(20);
        assertThat(fewer.stream.completed()).isGreaterThanOrEqualTo(20);
        assertThat(fewer.sim.eventsExecuted() / (double) fewer.stream.completed())
                .isLessThan(0.9 * plain.sim.eventsExecuted() / plain.stream.completed());
        assertThatThrownBy(() -> CountedWrites.main(new String[] {"model", "1", "1", "64", "128", "pcie.mpss=1"}))
                .isInstanceOf(ProfileException.class).hasMessageContaining("pcie.mps");
    }

    @Test
    void anUnknownWorkloadIsRefused() {
        assertThatThrownBy(() -> CountedWrites.main(new String[] {"nothing", "1", "1"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("model, floor or link");
        assertThatThrownBy(() -> CountedWrites.main(new String[] {"floor", "1", "1", "128", "4"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64 B");
        assertThatThrownBy(() -> CountedWrites.main(new String[] {"link", "1", "1", "128", "4"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256 B writes");
    }
}
