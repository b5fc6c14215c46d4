package dev.rdmasim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The counted run really completes the WRITEs it is asked for, so an instruction count can be divided by them. */
class CountedWritesTest {
    @Test
    void theModelCompletesEachStretchOfWrites() {
        CountedWrites.Model m = new CountedWrites.Model(64, 128);
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
        } finally {
            System.setOut(out);
        }
        String text = buf.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("model: 3 WRITEs after 2").contains("completed ");
        assertThat(text).contains("floor: 20 WRITEs after 10").contains("check ");
    }

    @Test
    void anUnknownWorkloadIsRefused() {
        assertThatThrownBy(() -> CountedWrites.main(new String[] {"nothing", "1", "1"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("model or floor");
        assertThatThrownBy(() -> CountedWrites.main(new String[] {"floor", "1", "1", "128", "4"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64 B");
    }
}
