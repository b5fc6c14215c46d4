package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.rdmasim.traces.Examples;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays seeded mutations of the shipped examples through the command line, in process: lines deleted, duplicated
 * and swapped, numbers made extreme or malformed, the file cut short, unknown words, deep nesting, other encodings.
 * Each run must either succeed with every output written, or exit 2 with one line naming the trace's line and column
 * and no output file; never an uncaught exception, never a hang. Case N is the same mutation on every machine.
 */
class TraceFuzzTest {
    /** Cases run by the build; {@code -Dfuzz.cases=N} runs more, {@code -Dfuzz.case=N} only case N. */
    private static final int CASES = Integer.getInteger("fuzz.cases", 300);
    private static final Pattern NUMBER = Pattern.compile("\\d+");
    private static final Pattern REPEAT_COUNT = Pattern.compile("repeat (\\d+) as");
    private static final String[] EXTREME_NUMBERS = {"0", "1", "-1", "4097", "2147483648", "4294967296",
        "4611686018427387904", "9223372036854775807", "9223372036854775808", "99999999999999999999999", "0x",
        "0xFFFFFFFFFFFFFFFF", "1.5", "1e3", "", "+", "٣"};
    private static final String[] WORDS = {"bogus", "repeat", "end", "as", "@", "+", "=", "${", "}", "${i}", "${x}",
        "${1/0}", "#", "every=", "ctx=", "sge=A.src+0:0", "remote=B.dst+-1", "host C", "fill=pattern:", "A.", ".qp",
        "port=65536", "close A.qp", "connect A.qp B.qp port=7471", "\t", "\u0000", "\u001b[2J", "\uD83D\uDE00", "é"};

    static Stream<Long> cases() {
        Long only = Long.getLong("fuzz.case");
        return only != null ? Stream.of(only) : LongStream.range(0, CASES).boxed();
    }

    @ParameterizedTest(name = "case {0}")
    @MethodSource("cases")
    void aMutatedExampleRunsOrFailsInOneLine(long seed, @TempDir Path dir) throws IOException {
        SplittableRandom r = new SplittableRandom(0x5eedL * 1_000_003 + seed);
        List<String> names = Examples.names();
        String name = names.get(r.nextInt(names.size()));
        // Long repeats cut to a few iterations: the structure is what is mutated, and the cases stay fast.
        String text = REPEAT_COUNT.matcher(Examples.text(name)).replaceAll(m -> "repeat "
                + Math.min(Long.parseLong(m.group(1)), 12) + " as");
        List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        int mutations = 1 + r.nextInt(3);
        StringBuilder what = new StringBuilder(name);
        byte[] bytes = null;
        for (int m = 0; m < mutations; m++) {
            int kind = r.nextInt(9);
            what.append(", ").append(kind);
            int a = r.nextInt(lines.size());
            int b = r.nextInt(lines.size());
            switch (kind) {
                case 0 -> lines.remove(a);
                case 1 -> lines.add(a, lines.get(b));
                case 2 -> {
                    String t = lines.get(a);
                    lines.set(a, lines.get(b));
                    lines.set(b, t);
                }
                case 3 -> lines.set(a, replaceNumber(lines.get(a), r));
                case 4 -> {
                    String[] words = lines.get(a).split(" ", -1);
                    words[r.nextInt(words.length)] = WORDS[r.nextInt(WORDS.length)];
                    lines.set(a, String.join(" ", words));
                }
                case 5 -> {
                    // Wrap a run of lines in repeats, or nest an expression deeply.
                    if (r.nextBoolean()) {
                        int depth = 1 + r.nextInt(r.nextBoolean() ? 3 : 80);
                        int end = Math.min(lines.size(), a + 1 + r.nextInt(4));
                        for (int d = 0; d < depth; d++) {
                            lines.add(end, "end");
                            // Mostly single iterations: deep nests of doubling repeats would make millions of lines.
                            lines.add(a, "repeat " + (r.nextInt(8) == 0 ? 2 : 1) + " as v" + d);
                            end += 2;
                        }
                    } else {
                        int n = 1 + r.nextInt(r.nextBoolean() ? 40 : 3000);
                        lines.set(a, lines.get(a).replaceFirst("\\d+", "\\${" + "(".repeat(n) + "1" + ")".repeat(n) + "}"));
                    }
                }
                case 6 -> lines.add(a, "+" + EXTREME_NUMBERS[r.nextInt(EXTREME_NUMBERS.length)] + "ps poll A.cq");
                case 7 -> lines.set(a, lines.get(a).replaceAll("size=\\d+KiB", "size=" + (1 + r.nextInt(2048)) + "GiB"));
                default -> bytes = encode(String.join("\n", lines), r);
            }
        }
        byte[] file = bytes != null ? bytes : String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
        if (r.nextInt(10) == 0) {
            file = Arrays.copyOf(file, r.nextInt(file.length + 1)); // cut short
            what.append(", cut");
        }
        Path trace = dir.resolve("t.trace");
        Files.write(trace, file);
        if (System.getProperty("fuzz.keep") != null) {
            Files.write(Path.of(System.getProperty("fuzz.keep")), file); // to look at one case
        }
        Path out = dir.resolve("out");
        String label = what.toString();
        Cli c = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Cli.run("replay", trace.toString(), "--out",
                out.toString()), label);
        assertThat(c.code()).as("%s: exit status; stderr: %s", label, c.err()).isIn(0, 2);
        if (c.code() == 0) {
            for (String f : List.of("completions.csv", "summary.json", "lifecycle.csv")) {
                assertThat(out.resolve(f)).as(label).isNotEmptyFile();
            }
            assertThat(Files.readString(out.resolve("summary.json")).strip()).as(label).startsWith("{").endsWith("}");
            try (Stream<Path> s = Files.list(out)) {
                assertThat(s.filter(p -> p.toString().endsWith(".partial"))).as(label).isEmpty();
            }
        } else {
            String err = c.err();
            assertThat(err).as(label).endsWith("\n");
            assertThat(err.substring(0, err.length() - 1)).as(label).doesNotContain("\n", "\r", "\u001b")
                    .matches("rdmasim: " + Pattern.quote(trace.toString()) + ":\\d+:\\d+: \\S.*");
            if (Files.isDirectory(out)) {
                try (Stream<Path> s = Files.list(out)) {
                    assertThat(s).as(label + ": no output after a failed run").isEmpty();
                }
            }
        }
    }

    private static String replaceNumber(String line, SplittableRandom r) {
        Matcher m = NUMBER.matcher(line);
        List<int[]> spans = new ArrayList<>();
        while (m.find()) {
            spans.add(new int[] {m.start(), m.end()});
        }
        if (spans.isEmpty()) {
            return line;
        }
        int[] s = spans.get(r.nextInt(spans.size()));
        return line.substring(0, s[0]) + EXTREME_NUMBERS[r.nextInt(EXTREME_NUMBERS.length)] + line.substring(s[1]);
    }

    /** The text in another encoding, or with a byte-order mark, a stray byte or a control character. */
    private static byte[] encode(String text, SplittableRandom r) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        switch (r.nextInt(6)) {
            case 0 -> {
                b.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
                b.writeBytes(utf8);
            }
            case 1 -> b.writeBytes(text.getBytes(r.nextBoolean() ? StandardCharsets.UTF_16 : StandardCharsets.UTF_16LE));
            case 2 -> b.writeBytes(text.replace("host", "hôst").getBytes(StandardCharsets.ISO_8859_1));
            case 3 -> {
                int at = r.nextInt(utf8.length + 1);
                b.write(utf8, 0, at);
                b.write(0x80 + r.nextInt(0x80));
                b.write(utf8, at, utf8.length - at);
            }
            case 4 -> b.writeBytes(text.replace("\n", "\r\n").getBytes(StandardCharsets.UTF_8));
            default -> {
                int at = r.nextInt(utf8.length + 1);
                b.write(utf8, 0, at);
                b.write(r.nextInt(32));
                b.write(utf8, at, utf8.length - at);
            }
        }
        return b.toByteArray();
    }
}
