package dev.rdmasim.sweep.report;

import static dev.rdmasim.sweep.report.Fixtures.WRITE_BW;
import static dev.rdmasim.sweep.report.Fixtures.WRITE_LAT;
import static dev.rdmasim.sweep.report.Fixtures.busy;
import static dev.rdmasim.sweep.report.Fixtures.bw;
import static dev.rdmasim.sweep.report.Fixtures.lat;
import static dev.rdmasim.sweep.report.Fixtures.sweep;
import static dev.rdmasim.sweep.report.Fixtures.vals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.sweep.PointResult.Metric;
import dev.rdmasim.sweep.SweepResults;
import dev.rdmasim.sweep.report.Fixtures.Run;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

class PlotsTest {
    @TempDir
    static Path shared;
    @TempDir
    Path dir;
    /** The depth x inline figures, drawn once for the tests that only read them (drawing takes a while). */
    private static List<Path> files;

    @BeforeAll
    static void draw() throws IOException {
        files = Plots.write(shared.resolve("depth-inline"), depthByInline());
    }

    /**
     * Depth x inline, as in the shipped example sweep, with three repetitions that differ. Throughput only: two
     * figures (drawing is the slow part of these tests; the message rate figure is planned like throughput's).
     */
    static SweepResults depthByInline() {
        return sweep(WRITE_BW, vals("qp.initiatorQueueDepth", "qp.inlineDataSize"),
                List.of(vals("1", "4", "16", "64"), vals("0", "64")), 3,
                c -> new Run(List.of(new Metric("bw_avg_gbps", "Gb/s", Math.min(90, 6 * c.num("qp.initiatorQueueDepth"))
                        + c.num("qp.inlineDataSize") / 16.0 + c.repeat() * 0.5)), busy(0.9, 0.4)));
    }

    @Test
    void writesAPngAndAnSvgPerFigureThatReadBack() throws Exception {
        Path dir = shared.resolve("depth-inline");
        assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly(
                "throughput-vs-depth.png", "throughput-vs-depth.svg", "heatmap-throughput.png", "heatmap-throughput.svg");
        for (Path f : files) {
            assertThat(f).exists().isRegularFile();
            if (f.toString().endsWith(".png")) {
                BufferedImage img = ImageIO.read(f.toFile());
                assertThat(img).as(f.toString()).isNotNull();
                assertThat(img.getWidth()).isEqualTo(Plots.WIDTH);
                assertThat(img.getHeight()).isEqualTo(Plots.HEIGHT);
                assertThat(distinctColors(img)).as("a drawn chart, not a blank image").isGreaterThan(20);
            }
        }
        Document svg = parse(dir.resolve("throughput-vs-depth.svg"));
        assertThat(svg.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(svg.getDocumentElement().getAttribute("viewBox")).isEqualTo("0 0 800 500");
        assertThat(svg.getElementsByTagName("title").item(0).getTextContent())
                .isEqualTo("write_bw on default: throughput vs queue depth");
        assertThat(svg.getElementsByTagName("desc").item(0).getTextContent()).isEqualTo(
                "x axis: initiator queue depth (WQEs); y axis: throughput (Gb/s); series: inline=0, inline=64");
        assertThat(svg.getElementsByTagName("path").getLength()).as("glyphs and lines").isGreaterThan(20);
        Document heat = parse(dir.resolve("heatmap-throughput.svg"));
        assertThat(heat.getElementsByTagName("desc").item(0).getTextContent()).isEqualTo(
                "x axis: initiator queue depth (WQEs); y axis: inline size (B); colour: throughput (Gb/s)");
    }

    @Test
    void sameResultsGiveTheSameBytes() throws IOException {
        List<Path> a = files;
        List<Path> b = Plots.write(dir, depthByInline());
        assertThat(a).hasSameSizeAs(b);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Files.readAllBytes(a.get(i))).as(a.get(i).getFileName().toString())
                    .isEqualTo(Files.readAllBytes(b.get(i)));
        }
    }

    @Test
    void svgClipIdsAreNumberedInOrder() throws IOException {
        for (String name : List.of("throughput-vs-depth.svg", "heatmap-throughput.svg")) {
            String svg = Files.readString(shared.resolve("depth-inline").resolve(name));
            Matcher m = Pattern.compile("id=\"(clip[^\"]*)\"").matcher(svg);
            List<String> ids = new ArrayList<>();
            while (m.find()) {
                ids.add(m.group(1));
            }
            assertThat(ids).isNotEmpty();
            for (int i = 0; i < ids.size(); i++) {
                assertThat(ids.get(i)).isEqualTo("clip" + (i + 1));
                assertThat(svg).contains("url(#" + ids.get(i) + ")");
            }
            assertThat(svg).doesNotContainPattern("clip-?\\d{4,}");
        }
    }

    @Test
    void latencySweepsDrawToo() throws Exception {
        SweepResults r = sweep(WRITE_LAT, vals("-t"), List.of(vals("1", "16", "128")), 1,
                c -> new Run(lat(1 + c.num("-t") / 10.0, 3 + c.num("-t") / 5.0, ""), busy(0.2, 0.3)));
        List<Path> files = Plots.write(dir, r);
        assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly("latency-vs-depth.png",
                "latency-vs-depth.svg");
        assertThat(parse(dir.resolve("latency-vs-depth.svg")).getElementsByTagName("desc").item(0).getTextContent())
                .isEqualTo("x axis: initiator queue depth (WQEs); y axis: latency (\u00b5s); series: median, 99%");
    }

    @Test
    void the99PercentLatencyShowsWhereItEqualsTheMedian() throws Exception {
        // A deterministic ping-pong: the 99% latency is the median at every point. It must not vanish under it.
        SweepResults r = sweep(WRITE_LAT, vals("-t"), List.of(vals("1", "16", "128")), 1,
                c -> new Run(lat(1 + c.num("-t") / 10.0, 1 + c.num("-t") / 10.0, ""), busy(0.2, 0.3)));
        Plots.write(dir, r);
        BufferedImage png = ImageIO.read(dir.resolve("latency-vs-depth.png").toFile());
        // The band's color: the first series color at the band's opacity over the white plot.
        int base = 0x1f77b4;
        double a = Plots.SECONDARY_ALPHA / 255.0;
        int[] band = new int[3];
        for (int k = 0; k < 3; k++) {
            band[k] = (int) Math.round(((base >> (16 - 8 * k)) & 0xff) * a + 255 * (1 - a));
        }
        int matching = 0;
        for (int y = 0; y < png.getHeight(); y++) {
            for (int x = 0; x < png.getWidth(); x++) {
                int rgb = png.getRGB(x, y);
                if (Math.abs((rgb >> 16 & 0xff) - band[0]) <= 3 && Math.abs((rgb >> 8 & 0xff) - band[1]) <= 3
                        && Math.abs((rgb & 0xff) - band[2]) <= 3) {
                    matching++;
                }
            }
        }
        // A line's anti-aliased edge has a few such pixels; the band beside the median has thousands.
        assertThat(matching).isGreaterThan(1500);
    }

    @Test
    void flatZeroAndPartlyMissingDataStillDraw() throws IOException {
        SweepResults zero = sweep(WRITE_BW, vals("-s", "-I"), List.of(vals("64", "1024"), vals("0", "64")), 1,
                c -> new Run(List.of(new Metric("bw_avg_gbps", "Gb/s", 0)), busy(0, 0)));
        assertThat(Plots.write(dir.resolve("zero"), zero)).hasSize(4);
        assertThat(ImageIO.read(dir.resolve("zero/heatmap-throughput.png").toFile())).isNotNull();
        // One point reports nothing at all: a gap in the line.
        SweepResults partial = sweep(WRITE_BW, vals("-s"), List.of(vals("64", "256", "1024")), 1,
                c -> new Run(c.num("-s") == 256 ? List.of()
                        : List.of(new Metric("bw_avg_gbps", "Gb/s", c.num("-s") / 10.0)), List.of()));
        assertThat(Plots.write(dir.resolve("partial"), partial)).extracting(p -> p.getFileName().toString())
                .containsExactly("throughput-vs-size.png", "throughput-vs-size.svg");
        SweepResults one = sweep(WRITE_BW, List.of(), List.of(), 1, c -> new Run(bw(10, 64, ""), busy(0.5, 0.2)));
        assertThat(Plots.write(dir.resolve("one"), one)).isEmpty();
        assertThat(dir.resolve("one")).isEmptyDirectory();
    }

    static Document parse(Path svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        // The SVG 1.1 DOCTYPE names a DTD on the web: never fetch it.
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(svg.toFile());
    }

    private static int distinctColors(BufferedImage img) {
        java.util.Set<Integer> colors = new java.util.HashSet<>();
        for (int y = 0; y < img.getHeight(); y += 3) {
            for (int x = 0; x < img.getWidth(); x += 3) {
                colors.add(img.getRGB(x, y));
            }
        }
        return colors.size();
    }
}
