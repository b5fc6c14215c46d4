package dev.rdmasim.kernel.wave;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.testing.ExternalTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checks that GTKWave's own tools accept the dumps, using vcd2fst from the gtkwave package (skipped without it). */
class VcdToFstIntegrationTest {

    @TempDir
    Path dir;

    private long nowPs;

    @Test
    void vcd2fstConvertsTheDump() throws IOException, InterruptedException {
        Path vcd2fst = ExternalTool.vcd2fst();
        Path vcdFile = dir.resolve("in.vcd");
        Path fstFile = dir.resolve("out.fst");
        try (VcdWriter vcd = new VcdWriter(Files.newBufferedWriter(vcdFile, StandardCharsets.US_ASCII),
                () -> nowPs, SignalFilter.ALL)) {
            Signal top = vcd.signal("reset", 1);
            Signal tags = vcd.signal("nicA.dma.tagsInUse", 8);
            Signal addr = vcd.signal("nicA.dma.readAddr", 64);
            Signal valid = vcd.signal("nicA.tx.valid", 1);
            Signal other = vcd.signal("nicB.dma.tagsInUse", 8);
            vcd.begin();
            top.set(1);
            for (int cycle = 1; cycle <= 1000; cycle++) {
                nowPs = cycle * 2500L;
                top.set(0);
                tags.set(cycle % 33);
                addr.set(0xffff_8000_0000_0000L + cycle * 64L);
                valid.set(cycle & 1);
                other.set((cycle / 7) % 256);
            }
            nowPs += 2500;
        }

        ProcessBuilder command = new ProcessBuilder(vcd2fst.toString(), vcdFile.toString(), fstFile.toString())
                .redirectErrorStream(true);
        Process process = command.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("vcd2fst finished in time").isTrue();

        assertThat(process.exitValue()).as("vcd2fst exit code; output:%n%s", output).isZero();
        assertThat(fstFile).exists();
        assertThat(Files.size(fstFile)).isPositive();
    }
}
