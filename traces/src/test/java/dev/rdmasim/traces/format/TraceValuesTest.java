package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.ValueType;
import dev.rdmasim.ndk.NdkConstants;
import dev.rdmasim.ndk.NdkOpFlags;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Value parsing through the accessors of {@link TraceLine}. */
class TraceValuesTest {
    private static TraceLine only(String line) {
        List<TraceLine> lines = TraceTexts.read(TraceTexts.HEADER + line + "\n");
        assertThat(lines).hasSize(1);
        return lines.get(0);
    }

    @ParameterizedTest
    @CsvSource({"64, 64", "0x40, 64", "0X1f, 31", "64B, 64", "4KiB, 4096", "4kib, 4096", "2MiB, 2097152",
        "1GiB, 1073741824", "2TiB, 2199023255552", "0, 0"})
    void sizes(String text, long bytes) {
        assertThat(only("mr A.m pd=A.pd size=" + text).size("size")).isEqualTo(bytes);
    }

    @ParameterizedTest
    @CsvSource({"64KB, 64KiB, 65536", "1mb, 1MiB, 1048576", "3GB, 3GiB, 3221225472"})
    void sizesTakeTheProfilesBinaryUnitsOnly(String text, String binary, long bytes) {
        // One rule with profiles and --set: KB, MB, ... would be 1000 B to some readers and 1024 B to others.
        assertThatThrownBy(() -> only("mr A.m pd=A.pd size=" + text)).isInstanceOf(TraceError.class).hasMessage(
                "t.trace:2:21: expected a size such as 4KiB, got '" + text + "' (sizes take binary units: " + binary
                        + " is " + bytes + " B; KB, MB, GB, ... are not used)");
        assertThatThrownBy(() -> ValueType.BYTES.parse(text))
                .hasMessageContaining("sizes take binary units: " + binary + " is " + bytes + " B");
        assertThat(only("mr A.m pd=A.pd size=" + binary).size("size")).isEqualTo(bytes)
                .isEqualTo(ValueType.BYTES.parse(binary));
    }

    @ParameterizedTest
    @CsvSource({"1ps, 1", "250ns, 250000", "1.5us, 1500000", "0.001ns, 1", "2ms, 2000000000", "1s, 1000000000000",
        "1.25s, 1250000000000", "3.000us, 3000000", "1.0000000ns, 1000", ".5ns, 500", "7US, 7000000"})
    void times(String text, long ps) {
        assertThat(only("moderate A.cq interval=" + text + " count=1").time("interval")).isEqualTo(ps);
    }

    @Test
    void integersAreDecimalOrHex() {
        TraceLine l = only("connect A.qp B.qp port=0x1D2F in=16 out=0");
        assertThat(l.integer("port")).isEqualTo(7471);
        assertThat(l.integer("in")).isEqualTo(16);
        assertThat(l.integer("out", 99)).isZero();
        assertThat(l.integer("peer_in", 4)).isEqualTo(4);
        assertThat(l.has("peer_in")).isFalse();
        assertThat(l.positional(0)).isEqualTo("A.qp");
        assertThat(l.positional(1)).isEqualTo("B.qp");
        assertThat(l.positionalPosition(1)).isEqualTo(new Position("t.trace", 2, 14));
        assertThat(l.position("in")).isEqualTo(new Position("t.trace", 2, 34));
        assertThat(l.isCall()).isFalse();
    }

    @Test
    void callFlagsAreCaseInsensitiveAndJoinedByBars() {
        TraceLine l = only("send A.qp ctx=c flags=silent_success|Inline|DEFER|READ_FENCE|SEND_AND_SOLICIT_EVENT");
        assertThat(l.callFlags("flags")).isEqualTo(NdkOpFlags.NDK_OP_FLAG_SILENT_SUCCESS | NdkOpFlags.NDK_OP_FLAG_INLINE
                | NdkOpFlags.NDK_OP_FLAG_DEFER | NdkOpFlags.NDK_OP_FLAG_READ_FENCE
                | NdkOpFlags.NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT);
        assertThat(only("read A.qp ctx=c remote=B.d+0 flags=RDMA_READ_LOCAL_INVALIDATE").callFlags("flags"))
                .isEqualTo(NdkOpFlags.NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE);
        assertThat(only("send A.qp ctx=c").callFlags("flags")).isZero();
    }

    @Test
    void mrFlagsAndNotifyTypes() {
        assertThat(only("mr A.m pd=A.pd size=1 access=LOCAL_WRITE|REMOTE_READ").mrFlags("access"))
                .isEqualTo(NdkConstants.NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NdkConstants.NDK_MR_FLAG_ALLOW_REMOTE_READ);
        assertThat(only("mr A.m pd=A.pd size=1 access=remote_write").mrFlags("access")).isEqualTo(0x5);
        assertThat(only("mr A.m pd=A.pd size=1 access=RDMA_READ_SINK").mrFlags("access")).isEqualTo(0x8);
        assertThat(only("mr A.m pd=A.pd size=1").mrFlags("access")).isZero();
        assertThat(only("arm A.cq ANY").notifyType(1)).isEqualTo(NdkConstants.NDK_CQ_NOTIFY_ANY);
        assertThat(only("arm A.cq solicited").notifyType(1)).isEqualTo(NdkConstants.NDK_CQ_NOTIFY_SOLICITED);
        assertThat(only("arm A.cq Errors").notifyType(1)).isEqualTo(NdkConstants.NDK_CQ_NOTIFY_ERRORS);
    }

    @Test
    void buffersAndRemotes() {
        TraceLine l = only("write A.qp ctx=w7 sge=A.src+0:4KiB,A.src+0x1000:64,A.b-2+8:1 remote=B.dst+1MiB flags=INLINE");
        assertThat(l.buffers("sge")).containsExactly(
                new Buffer("A.src", 0, 4096, new Position("t.trace", 2, 23)),
                new Buffer("A.src", 4096, 64, new Position("t.trace", 2, 36)),
                new Buffer("A.b-2", 8, 1, new Position("t.trace", 2, 52)));
        assertThat(l.remote("remote")).isEqualTo(new Remote("B.dst", 1 << 20, new Position("t.trace", 2, 69)));
        assertThat(l.text("ctx")).isEqualTo("w7");
        assertThat(only("send A.qp ctx=c").buffers("sge")).isEmpty();
    }

    @Test
    void bytesFillsAndSettings() {
        TraceLine c = only("connect A.qp B.qp port=1 data=68656C6c6f");
        assertThat(c.bytes("data")).containsExactly('h', 'e', 'l', 'l', 'o');
        assertThat(c.bytes("peer_data", new byte[0])).isEmpty();
        assertThat(only("mr A.m pd=A.pd size=1 fill=byte:0xA5").fill("fill")).isEqualTo(new Fill(Fill.Kind.BYTE, 0xA5));
        assertThat(only("mr A.m pd=A.pd size=1 fill=pattern:42").fill("fill")).isEqualTo(new Fill(Fill.Kind.PATTERN, 42));
        assertThat(only("mr A.m pd=A.pd size=1 fill=ZERO").fill("fill")).isEqualTo(Fill.ZERO);
        assertThat(only("mr A.m pd=A.pd size=1").fill("fill")).isEqualTo(Fill.ZERO);
        assertThat(only("host A profile=cx5-like set=pcie.mps=512,ndk.maxCqDepth=100").settings("set"))
                .containsExactly(Map.entry("pcie.mps", "512"), Map.entry("ndk.maxCqDepth", "100"));
        assertThat(only("cq A.cq depth=4 poll=MANUAL").text("poll")).isEqualTo("manual");
    }

    @Test
    void keywordsAndKeysAreCaseInsensitiveAndCommentsEndLines() {
        TraceLine l = only("  CQ\tA.cq   DEPTH=0x10 Poll=Auto # a comment depth=3");
        assertThat(l.keyword()).isEqualTo("cq");
        assertThat(l.integer("depth")).isEqualTo(16);
        assertThat(l.text("poll", "x")).isEqualTo("auto");
        assertThat(l.position()).isEqualTo(new Position("t.trace", 2, 3));
        assertThat(l.time()).isEqualTo(TimeSpec.NONE);
    }

    @Test
    void accessorsOfAnotherKindParseTheTextAndSayWhatWasExpected() {
        TraceLine l = only("mr A.m pd=A.pd size=4KiB");
        assertThat(l.text("size")).isEqualTo("4KiB");
        assertThatThrownBy(() -> l.integer("size")).isInstanceOf(TraceError.class)
                .hasMessage("t.trace:2:21: expected an integer such as 128 or 0x5A, got '4KiB'");
        assertThatThrownBy(() -> l.time("size")).isInstanceOf(TraceError.class)
                .hasMessage("t.trace:2:21: expected a time such as 1.5us, got '4KiB'");
        assertThatThrownBy(() -> l.text("access")).isInstanceOf(TraceError.class)
                .hasMessage("t.trace:2:1: missing key 'access' for mr");
        assertThatThrownBy(() -> l.text("depth")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("mr has no key 'depth'");
        TraceError e = org.junit.jupiter.api.Assertions.assertThrows(TraceError.class, () -> l.integer("size"));
        assertThat(e.position()).isEqualTo(new Position("t.trace", 2, 21));
        assertThat(e.detail()).isEqualTo("expected an integer such as 128 or 0x5A, got '4KiB'");
    }

    @Test
    void computedValuesHaveCanonicalText() {
        TraceLine l = TraceTexts.read(TraceTexts.HEADER + "repeat 1 as i\n"
                + "  write A.qp ctx=w${i} sge=A.src+${i+1}KiB:${4}KiB remote=B.dst+${i*8} flags=INLINE\n"
                + "  moderate A.cq interval=${i+2}us count=${i+3}\nend\n").get(0);
        assertThat(l.text("sge")).isEqualTo("A.src+1024:4096");
        assertThat(l.text("remote")).isEqualTo("B.dst+0");
        assertThat(l.toString()).isEqualTo("t.trace:3: write A.qp ctx=w0 sge=A.src+1024:4096 remote=B.dst+0 flags=INLINE");
        TraceLine m = TraceTexts.read(TraceTexts.HEADER + "repeat 1 as i\n  moderate A.cq interval=${i+2}us count=${i+3}\nend\n")
                .get(0);
        assertThat(m.time("interval")).isEqualTo(2_000_000);
        assertThat(m.text("interval")).isEqualTo("2000000ps");
        assertThat(m.integer("count")).isEqualTo(3);
        assertThat(m.size("count")).isEqualTo(3);
    }
}
