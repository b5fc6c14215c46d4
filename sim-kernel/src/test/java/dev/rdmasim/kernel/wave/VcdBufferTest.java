package dev.rdmasim.kernel.wave;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Writer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many changes at one instant and a header longer than the writer's internal buffer: the dump must come out
 * whole, every line intact, in the order of the changes, however the buffer is drained.
 */
class VcdBufferTest {

    /** Collects what it is given and the size of each write. */
    private static final class Chunks extends Writer {
        final StringBuilder text = new StringBuilder();
        final List<Integer> sizes = new ArrayList<>();

        @Override
        public void write(char[] cbuf, int off, int len) {
            text.append(cbuf, off, len);
            sizes.add(len);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void manyChangesAtOneInstantComeOutWhole(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long[] now = {0};
        Chunks out = new Chunks();
        VcdWriter vcd = new VcdWriter(out, () -> now[0], SignalFilter.ALL);
        int n = 400 + rnd.nextInt(200);
        List<Signal> signals = new ArrayList<>();
        List<Integer> widths = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // Long scope names make a header of several buffers.
            int w = rnd.nextInt(4) == 0 ? 1 : 64;
            signals.add(vcd.signal("top.block_with_a_rather_long_name_" + (i % 37) + ".sig" + i, w));
            widths.add(w);
        }
        vcd.begin();
        // Three instants, each with more change lines than fit in the buffer (400 x ~70 chars).
        List<String> expected = new ArrayList<>();
        Map<Integer, Long> last = new HashMap<>();
        for (int t = 1; t <= 3; t++) {
            now[0] = t * 1_000_000_000_000L + t;
            expected.add("#" + now[0]);
            for (int i = 0; i < n; i++) {
                long v = widths.get(i) == 1 ? (t + i) & 1 : rnd.nextLong() | Long.MIN_VALUE;
                if (last.getOrDefault(i, 0L) == v) {
                    continue;
                }
                last.put(i, v);
                signals.get(i).set(v);
                String id = new String(((TracedSignal) signals.get(i)).id);
                expected.add(widths.get(i) == 1 ? v + id : "b" + Long.toBinaryString(v) + " " + id);
            }
        }
        now[0] += 5;
        vcd.close();
        String dump = out.text.toString();
        assertThat(dump).contains("$enddefinitions $end\n");
        String body = dump.substring(dump.indexOf("$dumpvars"));
        List<String> lines = new ArrayList<>(List.of(body.split("\n")));
        // $dumpvars, n initial values, $end, then the changes, then the closing time.
        assertThat(lines.get(0)).isEqualTo("$dumpvars");
        assertThat(lines.get(n + 1)).isEqualTo("$end");
        assertThat(lines.subList(n + 2, lines.size() - 1)).containsExactlyElementsOf(expected);
        assertThat(lines.get(lines.size() - 1)).isEqualTo("#" + now[0]);
        for (int size : out.sizes) {
            assertThat(size).isLessThanOrEqualTo(8192);
        }
        assertThat(out.sizes.size()).as("drained several times").isGreaterThan(4);
        // Every declared signal appears in the header with its identifier.
        for (int i = 0; i < n; i++) {
            String id = new String(((TracedSignal) signals.get(i)).id);
            assertThat(dump).contains("$var wire " + widths.get(i) + " " + id + " sig" + i + " $end\n");
        }
    }
}
