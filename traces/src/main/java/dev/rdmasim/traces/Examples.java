package dev.rdmasim.traces;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The example traces shipped inside this jar (in the source tree: {@code traces/examples/}), each teaching one idea,
 * so that a command finds them from any working directory. An example is named without its {@code .trace} suffix;
 * its first comment line is its one-line idea; a GTKWave save file {@code NAME.gtkw} may come with it.
 */
public final class Examples {
    private static final String DIR = "/dev/rdmasim/traces/examples/";

    /** In teaching order, the order of the README's table. A test checks it against the examples directory. */
    private static final List<String> NAMES = List.of("quickstart", "pingpong", "inline-vs-dma", "doorbell-batching",
            "write-bw-depth", "remote-access-error", "cq-overflow", "solicited-events", "qp-limits", "write-past-end",
            "memory-check");

    private Examples() {
    }

    /** The shipped examples' names, in teaching order. */
    public static List<String> names() {
        return NAMES;
    }

    /**
     * The example called {@code name} or {@code name.trace}.
     *
     * @throws IllegalArgumentException naming the shipped examples when there is no such example
     */
    public static String resolve(String name) {
        String n = name.endsWith(".trace") ? name.substring(0, name.length() - ".trace".length()) : name;
        if (!NAMES.contains(n)) {
            throw new IllegalArgumentException("no shipped example '" + name + "'; shipped: " + String.join(", ", NAMES));
        }
        return n;
    }

    /** The trace's bytes as a stream; the caller closes it. */
    public static InputStream open(String name) {
        return resource(resolve(name) + ".trace")
                .orElseThrow(() -> new IllegalStateException("example " + name + " is missing from the traces jar"));
    }

    /** The trace's text. */
    public static String text(String name) {
        try (InputStream in = open(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first comment line after the header, without its {@code #}: what the example teaches, in one line. */
    public static String idea(String name) {
        for (String line : text(name).split("\n")) {
            String l = line.strip();
            if (l.startsWith("#") && !l.substring(1).isBlank()) {
                return l.substring(1).strip();
            }
        }
        return "";
    }

    /**
     * The paragraph of the example's leading comment that starts with {@code Look at:} (which outputs show its
     * idea), one entry per line without the {@code #}; empty if it has none.
     */
    public static List<String> lookAt(String name) {
        List<String> paragraph = new ArrayList<>();
        for (String line : text(name).split("\n")) {
            String l = line.strip();
            if (l.startsWith("rdmasim-trace")) {
                continue;
            }
            if (!l.startsWith("#")) {
                break;
            }
            String c = l.substring(1).strip();
            if (c.isEmpty()) {
                if (!paragraph.isEmpty()) {
                    break;
                }
            } else if (!paragraph.isEmpty() || c.startsWith("Look at:")) {
                paragraph.add(c);
            }
        }
        return List.copyOf(paragraph);
    }

    /** The text of the example's GTKWave save file ({@code NAME.gtkw}), if one is shipped. */
    public static Optional<String> gtkwaveSave(String name) {
        return resource(resolve(name) + ".gtkw").map(in -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /**
     * Writes the example as {@code dir/NAME.trace} (creating {@code dir}) and returns that path: a file to replay,
     * read and edit. An existing file of that name is replaced.
     */
    public static Path extract(String name, Path dir) throws IOException {
        String n = resolve(name);
        Files.createDirectories(dir);
        Path file = dir.resolve(n + ".trace");
        Files.writeString(file, text(n));
        return file;
    }

    private static Optional<InputStream> resource(String file) {
        return Optional.ofNullable(Examples.class.getResourceAsStream(DIR + file));
    }
}
