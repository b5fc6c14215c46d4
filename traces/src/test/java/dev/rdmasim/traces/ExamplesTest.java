package dev.rdmasim.traces;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The examples in the jar are those of traces/examples/, byte for byte, each with a one-line idea. */
class ExamplesTest {
    static final Path SOURCE = Path.of("examples");

    @Test
    void theListedExamplesAreExactlyTheFilesOfTheExamplesDirectory() throws IOException {
        try (Stream<Path> files = Files.list(SOURCE)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".trace"))
                    .map(n -> n.substring(0, n.length() - ".trace".length())))
                    .containsExactlyInAnyOrderElementsOf(Examples.names());
        }
        assertThat(Examples.names()).startsWith("quickstart");
    }

    @Test
    void eachShippedExampleIsItsSourceFileAndExtractsToIt(@TempDir Path dir) throws IOException {
        for (String name : Examples.names()) {
            byte[] source = Files.readAllBytes(SOURCE.resolve(name + ".trace"));
            try (var in = Examples.open(name + ".trace")) {
                assertThat(in.readAllBytes()).as(name).isEqualTo(source);
            }
            Path file = Examples.extract(name, dir);
            assertThat(file).isEqualTo(dir.resolve(name + ".trace"));
            assertThat(Files.readAllBytes(file)).as(name).isEqualTo(source);
        }
    }

    @Test
    void eachIdeaIsTheFirstCommentLineAndASentenceThatFitsALine() {
        assertThat(Examples.idea("quickstart"))
                .isEqualTo("Quickstart: one RDMA WRITE of 4 KiB from host A into a buffer on host B.");
        for (String name : Examples.names()) {
            assertThat(Examples.idea(name)).as(name).endsWith(".").hasSizeLessThan(100).contains(": ");
        }
    }

    @Test
    void eachExampleSaysWhatToLookAt() {
        assertThat(Examples.lookAt("remote-access-error")).containsExactly(
                "Look at: completions.csv (status column), and with --pcap the NAK (AETH syndrome) in wire.pcap.");
        assertThat(Examples.lookAt("quickstart")).hasSize(4).first().asString()
                .startsWith("Look at: completions.csv (one row");
        for (String name : Examples.names()) {
            assertThat(Examples.lookAt(name)).as(name).isNotEmpty();
        }
    }

    @Test
    void aSaveFileComesWithTheQuickstartOnly() throws IOException {
        assertThat(Examples.gtkwaveSave("quickstart")).get().asString().contains("nicA.");
        assertThat(Examples.gtkwaveSave("pingpong")).isEmpty();
        try (Stream<Path> saves = Files.list(SOURCE)) {
            assertThat(saves.filter(p -> p.toString().endsWith(".gtkw")).map(p -> p.getFileName().toString()))
                    .containsExactly("quickstart.gtkw");
        }
    }

    @Test
    void anUnknownNameIsRefusedWithTheShippedOnes() {
        assertThatThrownBy(() -> Examples.resolve("quickstrat")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no shipped example 'quickstrat'; shipped: quickstart, pingpong, inline-vs-dma,"
                        + " doorbell-batching, write-bw-depth, remote-access-error, cq-overflow, solicited-events, qp-limits,"
                        + " write-past-end, memory-check");
        assertThat(Examples.resolve("pingpong.trace")).isEqualTo("pingpong");
    }
}
