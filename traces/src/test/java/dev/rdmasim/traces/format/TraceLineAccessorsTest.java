package dev.rdmasim.traces.format;

import static dev.rdmasim.traces.format.TraceTexts.HEADER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.ndk.NdkConstants;
import dev.rdmasim.ndk.NdkOpFlags;
import dev.rdmasim.ndk.NtStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The accessors of a line as the replay calls them: defaults of absent keys, positional arguments and their bounds,
 * expected statuses, structured values by their own kind and by another, and the line printed back with its time.
 */
class TraceLineAccessorsTest {
    private static TraceLine only(String line) {
        List<TraceLine> lines = TraceTexts.read(HEADER + line + "\n");
        assertThat(lines).hasSize(1);
        return lines.get(0);
    }

    @Test
    void absentKeysGiveTheirDefaults() {
        TraceLine l = only("send A.qp ctx=c");
        assertThat(l.callFlags("flags")).isZero();
        assertThat(l.buffers("sge")).isEmpty();
        assertThat(l.expects()).isFalse();
        assertThat(l.expectedStatus(123)).isEqualTo(123);
        assertThat(l.file()).isEqualTo("t.trace");
        assertThat(l.lineNumber()).isEqualTo(2);
        assertThat(l.positionalCount()).isEqualTo(1);
        assertThat(l.position("flags")).isEqualTo(new Position("t.trace", 2, 1));
        TraceLine m = only("mr A.m pd=A.pd size=1");
        assertThat(m.mrFlags("access")).isZero();
        assertThat(m.size("size", 7)).isEqualTo(1);
        TraceLine w = only("wait A.cq");
        assertThat(w.integer("count", 1)).isEqualTo(1);
        assertThat(w.text("ctx", "none")).isEqualTo("none");
        TraceLine q = only("moderate A.cq interval=1ns count=2");
        assertThat(q.time("interval", 5)).isEqualTo(1000);
        assertThat(only("flush A.qp").expects()).isFalse();
        assertThat(only("flush A.qp").expectedStatus(-1)).isEqualTo(-1);
    }

    @Test
    void absentDefaultsOfOptionalKeysThatAreNotNumbers() {
        TraceLine c = only("connect A.qp B.qp port=7");
        byte[] dflt = {1, 2};
        assertThat(c.bytes("data", dflt)).isSameAs(dflt);
        assertThat(only("connect A.qp B.qp port=7 data=0a0B").bytes("data", dflt)).containsExactly(0x0a, 0x0b);
        assertThat(only("host A").settings("set")).isEmpty();
        assertThat(only("qp A.q pd=A.pd rcq=A.c icq=A.c iq=1 rq=1 isge=1 rsge=1 inline=0").size("inline", 9)).isZero();
        assertThat(only("repeat 1 as i\n  moderate A.cq interval=${i+1}ns count=1\nend").time("interval", 5)).isEqualTo(1000);
    }

    @Test
    void statedStatusesByNameAndNumber() {
        TraceLine l = only("write A.qp ctx=c sge=A.s+0:1 remote=B.d+0 expect=ACCESS_VIOLATION");
        assertThat(l.expects()).isTrue();
        assertThat(l.expectedStatus(0)).isEqualTo(NtStatus.STATUS_ACCESS_VIOLATION);
        assertThat(only("cq A.c depth=1 expect=0xC000000D").expectedStatus(0)).isEqualTo(NtStatus.STATUS_INVALID_PARAMETER);
        assertThat(only("repeat 1 as i\n  cq A.c${i} depth=1 expect=0xC000000${i+5}\nend").expectedStatus(0))
                .isEqualTo(0xC0000005);
    }

    @Test
    void positionalArgumentsAndTheirBounds() {
        TraceLine c = only("connect A.qp B.qp port=7");
        assertThat(c.positional(1)).isEqualTo("B.qp");
        assertThat(c.positionalPosition(1)).isEqualTo(new Position("t.trace", 2, 14));
        assertThatThrownBy(() -> c.positional(2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connect has 2 positional arguments, not 3");
        assertThatThrownBy(() -> c.positional(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connect has 2 positional arguments, not 0");
        assertThat(TraceTexts.error(HEADER + "repeat 1 as i\n  arm A.cq ${i+1}\nend\n", false))
                .isEqualTo("t.trace:3:12: unknown notification type '1' (expected ANY, SOLICITED, ERRORS)");
        assertThat(only("repeat 1 as i\n  arm A.cq ANY\nend").notifyType(1)).isEqualTo(NdkConstants.NDK_CQ_NOTIFY_ANY);
    }

    @Test
    void theBufferOfACheckOrDump() {
        assertThat(only("dump A.s+4:8 file=x").buffer(0)).isEqualTo(new Buffer("A.s", 4, 8, new Position("t.trace", 2, 6)));
        assertThat(only("repeat 1 as i\n  check A.s+${i}:2 fill=zero\nend").buffer(0))
                .isEqualTo(new Buffer("A.s", 0, 2, new Position("t.trace", 3, 9)));
        TraceLine two = only("check A.s+0:1,A.s+1:1 fill=zero");
        assertThatThrownBy(() -> two.buffer(0)).isInstanceOf(TraceError.class)
                .hasMessage("t.trace:2:7: expected one buffer MR+OFFSET:LENGTH, got 2");
    }

    @Test
    void valuesOfAnotherKindAreParsedFromTheirText() {
        // ctx is text: asked as another kind, it is parsed.
        TraceLine s = only("send A.qp ctx=4KiB");
        assertThat(s.size("ctx")).isEqualTo(4096);
        assertThat(only("send A.qp ctx=1us").time("ctx")).isEqualTo(1_000_000);
        assertThat(only("send A.qp ctx=12").integer("ctx")).isEqualTo(12);
    }

    @Test
    void computedBuffersPrintEveryBufferAndComputedTimesAndSizesPrintTheirUnits() {
        TraceLine l = only("repeat 1 as i\n  send A.qp ctx=c sge=A.s+${i}:${i+1},B.t+${i+2}:8\nend");
        assertThat(l.text("sge")).isEqualTo("A.s+0:1,B.t+2:8");
        assertThat(l.buffers("sge")).containsExactly(new Buffer("A.s", 0, 1, new Position("t.trace", 3, 23)),
                new Buffer("B.t", 2, 8, new Position("t.trace", 3, 39)));
        TraceLine m = only("repeat 1 as i\n  mr A.m${i} pd=A.pd size=${i+2}KiB\nend");
        assertThat(m.text("size")).isEqualTo("2048");
        assertThat(m.size("size")).isEqualTo(2048);
        assertThat(m.toString()).isEqualTo("t.trace:3: mr A.m0 pd=A.pd size=2048");
    }

    @Test
    void aLinePrintsBackWithItsResolvedTime() {
        assertThat(only("@2us flush A.qp").toString()).isEqualTo("t.trace:2: @2000000ps flush A.qp");
        assertThat(only("+3ns flush A.qp").toString()).isEqualTo("t.trace:2: +3000ps flush A.qp");
        List<TraceLine> lines = TraceTexts.read(HEADER + "repeat 2 as i every=1ns\n  flush A.qp\nend\n");
        assertThat(lines.get(0).toString()).isEqualTo("t.trace:3: flush A.qp");
        assertThat(lines.get(1).toString()).isEqualTo("t.trace:3: anchor0+1000ps flush A.qp");
    }

    @Test
    void flagsByTheirOwnKindAndAsText() {
        assertThat(only("send A.qp ctx=c flags=inline|Silent_Success").callFlags("flags"))
                .isEqualTo(NdkOpFlags.NDK_OP_FLAG_INLINE | NdkOpFlags.NDK_OP_FLAG_SILENT_SUCCESS);
        assertThat(only("mr A.m pd=A.pd size=1 access=remote_read").mrFlags("access"))
                .isEqualTo(NdkConstants.NDK_MR_FLAG_ALLOW_REMOTE_READ);
    }

    @Test
    void lowerCaseIsOnlyMadeWhenNeeded() {
        String s = "already lower";
        assertThat(TraceLine.lower(s)).isSameAs(s);
        assertThat(TraceLine.lower("MiXeD")).isEqualTo("mixed");
        assertThat(TraceLine.lower("@[`{")).isEqualTo("@[`{");
        assertThat(TraceLine.lower("xZ")).isEqualTo("xz");
        assertThat(TraceLine.lower("Ax")).isEqualTo("ax");
    }
}
