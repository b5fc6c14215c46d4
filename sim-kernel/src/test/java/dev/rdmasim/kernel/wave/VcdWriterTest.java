package dev.rdmasim.kernel.wave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.io.StringWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VcdWriterTest {

    private long nowPs;
    private final StringWriter out = new StringWriter();
    private final VcdWriter vcd = new VcdWriter(out, () -> nowPs, SignalFilter.ALL);

    private static final String TINY_HEADER = """
            $version rdmasim $end
            $timescale 1ps $end
            $scope module nicA $end
            $var wire 1 " valid $end
            $scope module dma $end
            $var wire 8 ! tagsInUse $end
            $upscope $end
            $upscope $end
            $enddefinitions $end
            """;

    @Test
    void writesExpectedDumpForATinyExample() {
        Signal tags = vcd.signal("nicA.dma.tagsInUse", 8);
        Signal valid = vcd.signal("nicA.valid", 1);
        vcd.begin();
        valid.set(1);
        nowPs = 10;
        tags.set(5);
        tags.set(5);
        nowPs = 25;
        valid.set(0);
        tags.set(10);
        nowPs = 30;
        vcd.close();

        assertThat(out.toString()).isEqualTo(TINY_HEADER + """
                #0
                $dumpvars
                b0 !
                0"
                $end
                1"
                #10
                b101 !
                #25
                0"
                b1010 !
                #30
                """);
    }

    @Test
    void writesOnlyChanges() {
        Signal tags = vcd.signal("nicA.dma.tagsInUse", 8);
        vcd.begin();
        for (int t = 1; t <= 10; t++) {
            nowPs = t * 100L;
            tags.set(t < 5 ? 0 : 3);
        }
        nowPs = 1000;
        vcd.close();

        // Setting 0 (the initial value) at 100..400 and 3 again at 600..1000 writes nothing, not even a time.
        assertThat(body(out.toString())).isEqualTo("""
                #0
                $dumpvars
                b0 !
                $end
                #500
                b11 !
                #1000
                """);
    }

    @Test
    void headerIsWrittenAtTheFirstChangeWithoutBeginWithTheInitialValuesFromTheStart() {
        Signal valid = vcd.signal("valid", 1);
        nowPs = 40;
        valid.set(0);
        assertThat(out.toString()).isEmpty();

        valid.set(1);
        vcd.close();

        assertThat(out.toString()).isEqualTo("""
                $version rdmasim $end
                $timescale 1ps $end
                $var wire 1 ! valid $end
                $enddefinitions $end
                #0
                $dumpvars
                0!
                $end
                #40
                1!
                """);
    }

    @Test
    void closeWithoutChangesStillWritesAValidHeader() {
        vcd.signal("nicA.valid", 1);
        nowPs = 7;
        vcd.close();
        vcd.close();

        assertThat(out.toString()).endsWith("""
                $enddefinitions $end
                #7
                $dumpvars
                0!
                $end
                """);
    }

    @Test
    void filteredOutSignalsAreDisabledAndNotDeclared() {
        VcdWriter filtered = new VcdWriter(out, () -> nowPs, SignalFilter.parse("nicA.dma.*"));
        Signal tags = filtered.signal("nicA.dma.tagsInUse", 8);
        Signal valid = filtered.signal("nicA.valid", 1);
        filtered.begin();
        valid.set(1);
        nowPs = 5;
        tags.set(2);
        filtered.close();

        assertThat(tags.enabled()).isTrue();
        assertThat(valid.enabled()).isFalse();
        assertThat(valid.fullName()).isEqualTo("nicA.valid");
        assertThat(valid.width()).isEqualTo(1);
        assertThat(out.toString()).doesNotContain("valid").contains("""
                $scope module nicA $end
                $scope module dma $end
                $var wire 8 ! tagsInUse $end
                $upscope $end
                $upscope $end
                """).endsWith("""
                $end
                #5
                b10 !
                """);
    }

    @Test
    void timestampsNeverDecrease() {
        Signal a = vcd.signal("a", 4);
        Signal b = vcd.signal("b", 4);
        nowPs = 100;
        a.set(1);
        b.set(1);
        nowPs = 99;

        assertThatIllegalStateException().isThrownBy(() -> a.set(2))
                .withMessageContaining("backwards").withMessageContaining("100").withMessageContaining("99");
        // A change at an unchanged time must not repeat the time.
        nowPs = 100;
        a.set(3);
        vcd.close();

        assertThat(body(out.toString())).isEqualTo("""
                #0
                $dumpvars
                b0 !
                b0 "
                $end
                #100
                b1 !
                b1 "
                b11 !
                """);
    }

    @Test
    void scalarAndFullWidthValues() {
        Signal bit = vcd.signal("bit", 1);
        Signal word = vcd.signal("word", 64);
        vcd.begin();
        bit.set(1);
        word.set(-1L);
        nowPs = 1;
        word.set(Long.MIN_VALUE);
        word.set(0);
        vcd.close();

        assertThat(body(out.toString())).isEqualTo("#0\n$dumpvars\n0!\nb0 \"\n$end\n1!\n"
                + "b" + "1".repeat(64) + " \"\n#1\nb1" + "0".repeat(63) + " \"\nb0 \"\n");
    }

    @Test
    void valuesThatDoNotFitTheWidthAreRejected() {
        Signal bit = vcd.signal("bit", 1);
        Signal nibble = vcd.signal("nibble", 4);

        assertThatIllegalArgumentException().isThrownBy(() -> bit.set(2)).withMessageContaining("bit");
        assertThatIllegalArgumentException().isThrownBy(() -> nibble.set(16)).withMessageContaining("nibble");
        assertThatIllegalArgumentException().isThrownBy(() -> nibble.set(-1));
        nibble.set(15);
    }

    @Test
    void badDeclarationsAreRejected() {
        vcd.signal("nicA.valid", 1);

        assertThatIllegalArgumentException().isThrownBy(() -> vcd.signal("nicA.valid", 1))
                .withMessageContaining("nicA.valid");
        assertThatIllegalArgumentException().isThrownBy(() -> vcd.signal("w0", 0));
        assertThatIllegalArgumentException().isThrownBy(() -> vcd.signal("w65", 65));
        for (String bad : List.of("", ".a", "a.", "a..b", "a b", "a\tb", "caf\u00e9")) {
            assertThatIllegalArgumentException().as("name '%s'", bad).isThrownBy(() -> vcd.signal(bad, 1));
        }
    }

    @Test
    void standaloneDisabledSignalDoesNothing() {
        Signal off = Signal.disabled("nicA.valid", 1);
        off.set(1);

        assertThat(off.enabled()).isFalse();
        assertThat(off.fullName()).isEqualTo("nicA.valid");
        assertThat(off.width()).isEqualTo(1);
        assertThatIllegalArgumentException().isThrownBy(() -> Signal.disabled("w", 65));
    }

    @Test
    void duplicateNamesAreRejectedEvenWhenFilteredOut() {
        VcdWriter none = new VcdWriter(out, () -> nowPs, SignalFilter.NONE);
        none.signal("a", 1);

        assertThatIllegalArgumentException().isThrownBy(() -> none.signal("a", 1));
    }

    @Test
    void declaringAfterTheHeaderIsRejected() {
        Signal a = vcd.signal("a", 1);
        nowPs = 5;
        a.set(1);

        assertThatIllegalStateException().isThrownBy(() -> vcd.signal("b", 1))
                .withMessageContaining("b").withMessageContaining("header");
    }

    @Test
    void changesAtTheStartInstantSetInitialValuesAndLeaveDeclarationsOpen() {
        Signal a = vcd.signal("a", 1);
        a.set(1);
        Signal b = vcd.signal("b", 4);
        b.set(9);
        nowPs = 10;
        a.set(0);
        vcd.close();

        assertThat(out.toString()).contains("#0\n$dumpvars\n1!\nb1001 \"\n$end\n#10\n0!\n");
    }

    @Test
    void usingAClosedWriterIsRejected() {
        Signal a = vcd.signal("a", 1);
        vcd.close();

        assertThatIllegalStateException().isThrownBy(() -> a.set(1)).withMessageContaining("closed");
        assertThatIllegalStateException().isThrownBy(vcd::begin);
        assertThatIllegalStateException().isThrownBy(() -> vcd.signal("b", 1));
    }

    @Test
    void identifiersAreUniqueAndPrintable() {
        int count = 94 * 95 + 5; // past the one- and two-character codes
        for (int i = 0; i < count; i++) {
            vcd.signal("s" + i, 1);
        }
        vcd.close();

        Set<String> ids = new HashSet<>();
        for (String line : out.toString().split("\n")) {
            if (line.startsWith("$var ")) {
                String id = line.split(" ")[3];
                assertThat(id.chars()).allMatch(c -> c >= 33 && c <= 126);
                assertThat(ids.add(id)).as("id %s unique", id).isTrue();
            }
        }
        assertThat(ids).hasSize(count).contains("!", "~", "!!", "~~", "!!!");
    }

    @Test
    void changesDoNotAllocate() {
        VcdWriter sink = new VcdWriter(Writer.nullWriter(), () -> nowPs, SignalFilter.parse("traced.*"));
        Signal wide = sink.signal("traced.wide", 64);
        Signal bit = sink.signal("traced.bit", 1);
        Signal off = sink.signal("other.bit", 1);
        sink.begin();
        Runnable work = () -> {
            for (int i = 0; i < 100_000; i++) {
                nowPs += 1000;
                wide.set(nowPs * 31);
                bit.set(i & 1);
                off.set(i & 1);
            }
        };
        work.run();

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        work.run();
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        sink.close();

        // A single object per change would be at least 1.6 MB; the slack covers one-off JVM bookkeeping.
        assertThat(allocated).as("bytes allocated by 300k changes").isLessThan(16 * 1024);
    }

    /** The dump after {@code $enddefinitions}. */
    private static String body(String dump) {
        return dump.substring(dump.indexOf("$enddefinitions $end\n") + "$enddefinitions $end\n".length());
    }
}
