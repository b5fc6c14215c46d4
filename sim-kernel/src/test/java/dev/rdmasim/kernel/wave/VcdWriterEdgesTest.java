package dev.rdmasim.kernel.wave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.io.Writer;
import org.junit.jupiter.api.Test;

/** The writer's edges: flushing and closing the target, negative times, a full buffer, names and widths at their limits. */
class VcdWriterEdgesTest {

    /** Keeps what it is given and counts flushes and closes. */
    private static final class Target extends Writer {
        final StringBuilder text = new StringBuilder();
        int flushes;
        int closes;

        @Override
        public void write(char[] cbuf, int off, int len) {
            text.append(cbuf, off, len);
        }

        @Override
        public void flush() {
            flushes++;
        }

        @Override
        public void close() {
            closes++;
        }
    }

    private long nowPs;
    private final Target out = new Target();
    private final VcdWriter vcd = new VcdWriter(out, () -> nowPs, SignalFilter.ALL);

    @Test
    void flushPassesEverythingWrittenSoFarAndFlushesTheTarget() {
        Signal a = vcd.signal("a", 4);
        vcd.begin();
        nowPs = 3;
        a.set(5);
        assertThat(out.text).isEmpty(); // still in the writer's buffer

        vcd.flush();

        assertThat(out.text.toString()).endsWith("$end\n#3\nb101 !\n");
        assertThat(out.flushes).isEqualTo(1);
        assertThat(out.closes).isZero();
        vcd.close();
        assertThatIllegalStateException().isThrownBy(vcd::flush).withMessage("VcdWriter is closed");
    }

    /** The second close neither writes the time again nor closes the target twice. */
    @Test
    void closingTwiceWritesAndClosesOnce() {
        Signal a = vcd.signal("a", 1);
        vcd.begin();
        nowPs = 10;
        a.set(1);
        nowPs = 20;
        vcd.close();
        String dump = out.text.toString();
        nowPs = 30;
        vcd.close();

        assertThat(dump).endsWith("#10\n1!\n#20\n");
        assertThat(out.text.toString()).isEqualTo(dump);
        assertThat(out.closes).isEqualTo(1);
    }

    /** A close at the last change's time adds no time line. */
    @Test
    void closeAtTheLastChangesTimeAddsNoTime() {
        Signal a = vcd.signal("a", 1);
        vcd.begin();
        nowPs = 10;
        a.set(1);
        vcd.close();

        assertThat(out.text.toString()).endsWith("$end\n#10\n1!\n");
    }

    /** A refused begin at a negative time writes nothing and leaves the declarations open. */
    @Test
    void aNegativeTimeIsRefusedBeforeAnythingIsWritten() {
        nowPs = -5;
        VcdWriter early = new VcdWriter(out, () -> nowPs, SignalFilter.ALL);
        early.signal("a", 1);
        assertThatIllegalStateException().isThrownBy(early::begin).withMessage("simulated time is negative: -5 ps");

        nowPs = 0;
        early.signal("b", 1);
        early.begin();
        early.close();
        assertThat(out.text.toString()).startsWith("$version rdmasim $end\n").contains("$var wire 1 \" b $end\n")
                .endsWith("#0\n$dumpvars\n0!\n0\"\n$end\n");
    }

    /** A close that failed still closes: the writer then refuses declarations, changes and a second close does nothing. */
    @Test
    void aFailedCloseLeavesTheWriterClosed() {
        nowPs = -1;
        VcdWriter early = new VcdWriter(out, () -> nowPs, SignalFilter.ALL);
        Signal a = early.signal("a", 1);
        assertThatIllegalStateException().isThrownBy(early::close).withMessageContaining("negative");
        assertThat(out.closes).isEqualTo(1);

        assertThatIllegalStateException().isThrownBy(() -> early.signal("b", 1)).withMessageContaining("header");
        assertThatIllegalStateException().isThrownBy(() -> a.set(1)).withMessage("VcdWriter is closed");
        early.close();
        assertThat(out.closes).isEqualTo(1);
    }

    /**
     * A header that fills the buffer exactly up to {@code $enddefinitions}: the time line after it goes into a
     * drained buffer, whole.
     */
    @Test
    void aHeaderThatFillsTheBufferExactlyIsFollowedByAWholeTimeLine() {
        int fixed = "$version rdmasim $end\n$timescale 1ps $end\n$enddefinitions $end\n".length()
                + "$var wire 1 !  $end\n".length();
        String name = "n".repeat(8192 - fixed);
        Signal s = vcd.signal(name, 1);
        nowPs = 123_456_789_012L;
        vcd.begin();
        nowPs++;
        s.set(1);
        vcd.close();

        String dump = out.text.toString();
        assertThat(dump.indexOf("$enddefinitions $end\n") + "$enddefinitions $end\n".length()).isEqualTo(8192);
        assertThat(dump.substring(8192)).isEqualTo("#123456789012\n$dumpvars\n0!\n$end\n#123456789013\n1!\n");
    }

    @Test
    void declaredSignalsCountsTracedAndFilteredOut() {
        VcdWriter some = new VcdWriter(out, () -> nowPs, SignalFilter.parse("a.*"));
        assertThat(some.declaredSignals()).isZero();
        some.signal("a.x", 1);
        some.signal("b.y", 1);
        some.signal("b.z", 8);
        assertThat(some.declaredSignals()).isEqualTo(3);
    }

    /** Names may use every printable character but the space; the limits '!' and '~' included, DEL not. */
    @Test
    void namesUseThePrintableCharactersUpToTilde() {
        Signal s = vcd.signal("top.a!~", 1);
        assertThat(s.fullName()).isEqualTo("top.a!~");
        assertThatIllegalArgumentException().isThrownBy(() -> vcd.signal("top.a\u007f", 1))
                .withMessageContaining("printable ASCII");
        assertThatIllegalArgumentException().isThrownBy(() -> vcd.signal("top.a\u001f", 1));
    }

    @Test
    void widthsFromOneTo64() {
        assertThat(vcd.signal("w64", 64).width()).isEqualTo(64);
        assertThat(Signal.disabled("d64", 64).width()).isEqualTo(64);
        assertThat(Signal.disabled("d1", 1).width()).isEqualTo(1);
        assertThatIllegalArgumentException().isThrownBy(() -> Signal.disabled("d0", 0))
                .withMessage("width of signal d0 must be 1 to 64, got 0");
        assertThatIllegalArgumentException().isThrownBy(() -> vcd.signal("w65", 65))
                .withMessage("width of signal w65 must be 1 to 64, got 65");
    }

    @Test
    void signalsAndFiltersDescribeThemselves() {
        Signal s = vcd.signal("nicA.count", 4);
        vcd.begin();
        s.set(9);
        assertThat(s).hasToString("nicA.count[4] = 9");
        assertThat(SignalFilter.ALL).hasToString("SignalFilter[*]");
        assertThat(SignalFilter.NONE).hasToString("SignalFilter[none]");
        assertThat(SignalFilter.parse(" a.* ,b")).hasToString("SignalFilter[a.*, b]");
    }
}
