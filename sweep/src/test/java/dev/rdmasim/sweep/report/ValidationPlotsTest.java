package dev.rdmasim.sweep.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.traces.validate.Validation;
import dev.rdmasim.traces.validate.Validation.Curve;
import dev.rdmasim.traces.validate.Validation.Figure;
import dev.rdmasim.traces.validate.Validation.Measurement;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ValidationPlotsTest {

    private static Measurement row(String id, List<String> set, String test, int size, Figure f, double hw) {
        return new Measurement(id, id, "cx5-like", set, test, size, -1, 0, f, hw, 10, "a test", false);
    }

    /** Curves as {@link Validation#curves} gives them, without running the model: model = a simple law of the size. */
    private static List<Curve> curves(List<Measurement> ms) {
        return Validation.groups(ms).stream().map(g -> new Curve(g, g.sizes(),
                g.sizes().stream().map(s -> g.figure() == Figure.LAT_TYPICAL_US ? 0.9 + s / 10000.0
                        : 50.0 * s / (s + 2048.0)).toList())).toList();
    }

    private static final List<Measurement> TABLE = List.of(
            row("nic1-send-lat-8", List.of(), "send_lat", 8, Figure.LAT_TYPICAL_US, 0.9),
            row("nic1-send-lat-4k", List.of(), "send_lat", 4096, Figure.LAT_TYPICAL_US, 1.4),
            row("nic2-send-lat-8", List.of("link.mtu=1024"), "send_lat", 8, Figure.LAT_TYPICAL_US, 1.0),
            row("nic1-rate-64", List.of(), "write_bw", 64, Figure.MSG_RATE_MPPS, 6),
            row("nic1-write-bw-1m", List.of(), "write_bw", 1 << 20, Figure.BW_AVG_GBPS, 55));

    @Test
    void writesOneFigureOfEachKindOfRowAndTheSameBytesTwice(@TempDir Path dir) throws Exception {
        Path a = Files.createDirectory(dir.resolve("a"));
        Path b = Files.createDirectory(dir.resolve("b"));
        List<Path> first = ValidationPlots.write(a, curves(TABLE));
        List<Path> second = ValidationPlots.write(b, curves(TABLE));
        assertThat(first).extracting(p -> p.getFileName().toString()).containsExactly(ValidationPlots.LATENCY,
                ValidationPlots.BANDWIDTH);
        for (int i = 0; i < first.size(); i++) {
            BufferedImage img = ImageIO.read(first.get(i).toFile());
            assertThat(img.getWidth()).isEqualTo(Plots.WIDTH);
            assertThat(img.getHeight()).isEqualTo(Plots.HEIGHT);
            assertThat(Files.readAllBytes(first.get(i))).isEqualTo(Files.readAllBytes(second.get(i)));
        }
        // The two latency groups are drawn in the first two colours (line and markers), the bandwidth group in the first.
        assertThat(pixels(ImageIO.read(first.get(0).toFile()), Plots.PALETTE[0])).isGreaterThan(50);
        assertThat(pixels(ImageIO.read(first.get(0).toFile()), Plots.PALETTE[1])).isGreaterThan(50);
        assertThat(pixels(ImageIO.read(first.get(1).toFile()), Plots.PALETTE[0])).isGreaterThan(50);
        assertThat(pixels(ImageIO.read(first.get(1).toFile()), Plots.PALETTE[1])).isZero();
    }

    @Test
    void legendNamesTheHardwareAndTestAndTellsModelFromHardware() {
        var chart = ValidationPlots.chart(Figure.LAT_TYPICAL_US,
                curves(TABLE).stream().filter(c -> c.group().figure() == Figure.LAT_TYPICAL_US).toList());
        assertThat(chart.getSeriesMap().keySet()).containsExactly("nic1 send_lat (model)", "nic1 send_lat (hardware)",
                "nic2 send_lat (model)", "nic2 send_lat (hardware)");
        // One hardware and test under two settings: the second legend names its settings.
        List<Measurement> twice = List.of(row("nic1-send-lat-8", List.of(), "send_lat", 8, Figure.LAT_TYPICAL_US, 1),
                row("nic1-send-lat-8b", List.of("link.mtu=1024"), "send_lat", 8, Figure.LAT_TYPICAL_US, 1));
        assertThat(ValidationPlots.chart(Figure.LAT_TYPICAL_US, curves(twice)).getSeriesMap().keySet()).containsExactly(
                "nic1 send_lat (model)", "nic1 send_lat (hardware)", "nic1 send_lat [cx5-like, link.mtu=1024] (model)",
                "nic1 send_lat [cx5-like, link.mtu=1024] (hardware)");
        assertThat(ValidationPlots.size(4096)).isEqualTo("4K");
        assertThat(ValidationPlots.size(1 << 21)).isEqualTo("2M");
        assertThat(ValidationPlots.size(512)).isEqualTo("512");
    }

    @Test
    void writesOnlyTheFiguresThatHaveCurves(@TempDir Path dir) throws Exception {
        assertThat(ValidationPlots.write(dir, curves(TABLE.subList(0, 2)))).extracting(p -> p.getFileName().toString())
                .containsExactly(ValidationPlots.LATENCY);
        assertThat(ValidationPlots.write(dir.resolve("none"), List.of())).isEmpty();
    }

    private static int pixels(BufferedImage img, Color c) {
        int n = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                n += (img.getRGB(x, y) & 0xffffff) == (c.getRGB() & 0xffffff) ? 1 : 0;
            }
        }
        return n;
    }
}
