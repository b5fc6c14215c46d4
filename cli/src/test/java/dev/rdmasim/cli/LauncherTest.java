package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The {@code ./rdmasim} launcher's first build shows its progress: Maven's log cut down to a line when libraries
 * start to come, a count every 50, and a line per module built.
 */
class LauncherTest {
    @Test
    void theBuildLogBecomesOneLinePerStep() throws Exception {
        StringBuilder log = new StringBuilder("[INFO] Scanning for projects...\n");
        for (int i = 0; i < 120; i++) {
            log.append("[INFO] Downloading from central: https://repo/a").append(i).append(".jar\n");
            log.append("[INFO] Downloaded from central: https://repo/a").append(i).append(".jar (2 kB at 3 kB/s)\n");
        }
        log.append("[INFO] --------------------< dev.rdmasim:rdmasim-parent >---------------------\n")
                .append("[INFO] Building rdmasim 0.1.0-SNAPSHOT                                    [1/8]\n")
                .append("[INFO] --------------------------------[ pom ]---------------------------------\n")
                .append("[INFO] ----------------------< dev.rdmasim:sim-kernel >-----------------------\n")
                .append("[INFO] Building rdmasim sim-kernel 0.1.0-SNAPSHOT                         [2/8]\n")
                .append("[INFO] Compiling 98 source files with javac [debug release 17] to target/classes\n")
                .append("[INFO] ------------------< dev.rdmasim:sweep-hazelcast >-------------------\n")
                .append("[INFO] Building rdmasim sweep on Hazelcast 0.1.0-SNAPSHOT                 [7/8]\n")
                .append("[INFO] -------------------------< dev.rdmasim:cli >--------------------------\n")
                .append("[INFO] Building rdmasim cli 0.1.0-SNAPSHOT                                [8/8]\n")
                .append("[INFO] BUILD SUCCESS\n");
        Process p = new ProcessBuilder("bash", Path.of("..", "rdmasim").toString(), "--build-progress-filter")
                .redirectErrorStream(true).start();
        p.getOutputStream().write(log.toString().getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(out).isEqualTo("""
                rdmasim:   fetching plugins and libraries into ~/.m2 (once)
                rdmasim:   50 files fetched
                rdmasim:   100 files fetched
                rdmasim:   building rdmasim-parent (1/8)
                rdmasim:   building sim-kernel (2/8)
                rdmasim:   building sweep-hazelcast (7/8)
                rdmasim:   building cli (8/8)
                """);
    }
}
