package dev.rdmasim.traces.format;

import static dev.rdmasim.traces.format.TraceTexts.SETUP;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The first pass's estimate of the host memory a run touches, worked out by hand: 16 MiB, plus 4160 bytes (a page and
 * its map entry) per page, where the pages are the bytes calls name in each region (at most its size) in 4 KiB pages,
 * three per region, and one more per 512. The limit is the heap itself: a run that needs exactly the heap passes.
 */
class TraceHeapEstimateTest {
    private static final long BASE = 16L << 20;
    private static final long PAGE = 4096 + 64;

    private static String error(String text, long heap) {
        try {
            TraceChecker.check(new StringReader(text), "t.trace", Path.of("."), heap);
            return "no error";
        } catch (TraceError e) {
            return e.getMessage();
        }
    }

    @Test
    void aTraceWithoutCallsTouchesNothingAndIsNeverRefused() {
        // Four regions of the setup: 12 pages of translation tables, but no region any call uses.
        assertThat(error(SETUP, 1)).isEqualTo("no error");
    }

    @Test
    void theRunThatNeedsExactlyTheHeapPassesAndOneByteLessIsRefused() {
        // 4 KiB named in A.src and 4 KiB in B.dst (2 pages) and four regions (12 pages): 14 pages.
        String t = SETUP + "write A.qp ctx=w sge=A.src+0:4KiB remote=B.dst+0\n";
        long need = BASE + 14 * PAGE;
        assertThat(error(t, need)).isEqualTo("no error");
        // A.src was touched first and B.dst no more than it: A.src (line 8) is the one named.
        assertThat(error(t, need - 1)).isEqualTo("t.trace:8:1: this run would touch about 16 MiB of host memory (the pages"
                + " of the regions that calls use, this one the most), more than the Java heap of 16 MiB: give the JVM"
                + " more (RDMASIM_JAVA_OPTS=-Xmx...) or use smaller buffers");
    }

    @Test
    void bytesNamedTwiceInARegionCountUpToItsSizeAndTheMostTouchedRegionIsNamed() {
        // B.big gets 64 writes of 64 KiB: 4 MiB, 1024 pages; A.src gets 64 sends of 64 KiB, its size: 16 pages;
        // five regions: 15 pages. 1055 pages, plus 2 (one per 512): 1057.
        String t = SETUP + "mr B.big pd=B.pd size=4MiB\n"
                + "repeat 64 as i\n"
                + "  write A.qp ctx=w sge=A.src+0:64KiB remote=B.big+${i*65536}\n"
                + "end\n";
        long need = BASE + 1057 * PAGE;
        assertThat(need >> 20).isEqualTo(20);
        assertThat(error(t, need)).isEqualTo("no error");
        assertThat(error(t, need - 1)).startsWith("t.trace:15:1: this run would touch about 20 MiB of host memory")
                .contains("more than the Java heap of 20 MiB");
    }

    @Test
    void aLaterRegionTouchedMoreTakesTheNameAndEqualTouchesKeepTheFirst() {
        String t = SETUP + "send A.qp ctx=a sge=A.src+0:4KiB\n"
                + "send B.qp ctx=b sge=B.dst+0:8KiB\n"
                + "send A.qp ctx=c sge=A.src+0:4KiB\n";
        // A.src 8 KiB, B.dst 8 KiB (the most after line 16, and A.src only equals it): 4 + 12 pages.
        assertThat(error(t, BASE + 16 * PAGE)).isEqualTo("no error");
        assertThat(error(t, BASE + 16 * PAGE - 1)).startsWith("t.trace:9:1: this run would touch");
    }

    @Test
    void largeFiguresArePrintedInGibibytesFromTenGibibytes() {
        String t = SETUP + "mr A.big pd=A.pd size=16GiB\nsend A.qp ctx=s sge=A.big+0:16GiB\n";
        // 4194304 pages of A.big and 15 of five regions; plus one per 512 (8192).
        long pages = 4194304 + 15;
        pages += pages / 512;
        long need = BASE + pages * PAGE;
        assertThat(error(t, need)).isEqualTo("no error");
        assertThat(error(t, 10L << 30)).startsWith("t.trace:15:1: this run would touch about " + (need >> 30) + " GiB")
                .contains("more than the Java heap of 10 GiB:");
        assertThat(error(t, (10L << 30) - 1)).contains("more than the Java heap of 10239 MiB:");
    }

    /** The setup with host A allowed registrations of 4 EiB (2^62 bytes). */
    private static final String HUGE = SETUP.replace("host A profile=default",
            "host A profile=default set=ndk.maxRegistrationSize=4EiB");

    @Test
    void regionsWhosePagesPassTheRangeOfALongAreRefusedWithTheLargestFigure() {
        // Three regions of 2^62 bytes, each named whole: more than 2^63 bytes in all.
        String t = HUGE + "repeat 3 as i\n  mr A.r${i} pd=A.pd size=4EiB\n  send A.qp ctx=s sge=A.r${i}+0:4EiB\nend\n";
        assertThat(error(t, Long.MAX_VALUE - 1)).startsWith("t.trace:16:3: this run would touch about "
                + (Long.MAX_VALUE >> 30) + " GiB");
        assertThat(error(t, Long.MAX_VALUE)).isEqualTo("no error");
    }

    @Test
    void aRemoteRangeOfMoreThan2To63BytesSaysSoInsteadOfANegativeLength() {
        String t = HUGE + "mr A.h pd=A.pd size=4EiB\n"
                + "write A.qp ctx=w sge=A.h+0:4EiB,A.h+0:4EiB,A.h+0:4EiB remote=B.dst+0\n";
        assertThat(error(t, Long.MAX_VALUE)).isEqualTo("t.trace:16:62: remote range B.dst+0 of 9223372036854775807 bytes"
                + " ends at byte 9223372036854775807, past the end of 'B.dst' (size 65536)");
    }

    @Test
    void aCleanCheckReturnsItsSummary() {
        assertThat(TraceChecker.check(new StringReader(SETUP + "flush A.qp\n"), "t.trace", Path.of("."), 1L << 30))
                .isEqualTo(new TraceChecker.Summary(2, 1, 13));
    }

    @Test
    void bytesNamedBeyondTheRangeOfALongSaturateInsteadOfWrapping() {
        // 2^62 bytes named three times: more than 2^63 bytes in one region, which still counts its size only.
        String t = HUGE + "mr A.huge pd=A.pd size=4EiB\n"
                + "repeat 3 as i\n  send A.qp ctx=s sge=A.huge+0:4EiB\nend\n";
        long pages = (1L << 62) / 4096 + 15;
        pages += pages / 512;
        long need = BASE + pages * PAGE;
        assertThat(error(t, need)).isEqualTo("no error");
        assertThat(error(t, need - 1)).startsWith("t.trace:15:1: this run would touch about " + (need >> 30) + " GiB");
    }
}
