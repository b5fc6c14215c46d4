package dev.rdmasim.traces.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.traces.format.TraceError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ReplayOptions#qp()} replaces the values of every qp line, as a sweep over QP parameters needs. */
class ReplayQpOverrideTest {
    /** Eight 64 B INLINE writes posted at once on a QP of depth 8 with 64 B of inline data; the replay takes them all. */
    private static final String TRACE = """
            rdmasim-trace 1
            host A
            host B
            cq A.cq depth=64
            cq B.cq depth=64
            pd A.pd
            pd B.pd
            mr A.src pd=A.pd size=4KiB access=LOCAL_WRITE fill=pattern:3
            mr B.dst pd=B.pd size=4KiB access=LOCAL_WRITE|REMOTE_WRITE
            qp A.qp pd=A.pd rcq=A.cq icq=A.cq rq=4 iq=8 rsge=1 isge=1 inline=64
            qp B.qp pd=B.pd rcq=B.cq icq=B.cq rq=4 iq=4 rsge=1 isge=1 inline=0
            connect A.qp B.qp port=7471
            +1us write A.qp ctx=w0 sge=A.src+0:64 remote=B.dst+0 flags=INLINE
            repeat 7 as i
              write A.qp ctx=w${i+1} sge=A.src+0:64 remote=B.dst+${(i+1)*64} flags=INLINE
            end
            """;

    @TempDir
    Path dir;

    private ReplayResult replay(String name, Map<String, Long> qp) throws Exception {
        Path trace = dir.resolve("t.trace");
        Files.writeString(trace, TRACE);
        return Replay.run(trace, ReplayOptions.into(dir.resolve(name)).withQp(qp));
    }

    @Test
    void theLinesAsWrittenRunWithoutOverrides() throws Exception {
        ReplayResult r = replay("plain", Map.of());
        assertThat(r.statusCounts()).containsExactly(Map.entry("STATUS_SUCCESS", 8L));
        assertThat(r.bytes()).isEqualTo(8 * 64);
    }

    @Test
    void anOverriddenDepthRefusesThePostsBeyondIt() throws Exception {
        ReplayResult r = replay("depth", Map.of("iq", 4L));
        // Four fit the queue; the other four are refused when posted (the replay logs refused calls as rows).
        assertThat(r.statusCounts().get("STATUS_SUCCESS")).isEqualTo(4L);
        assertThat(r.completions()).isEqualTo(8);
        assertThat(r.bytes()).isEqualTo(4 * 64);
    }

    @Test
    void anOverriddenInlineSizeMakesTheInlineWritesTooLarge() throws Exception {
        ReplayResult r = replay("inline", Map.of("inline", 32L));
        assertThat(r.statusCounts().get("STATUS_SUCCESS")).isNull();
        assertThat(r.bytes()).isZero();
    }

    @Test
    void anOverrideBeyondTheAdaptersLimitIsRefusedAtTheQpLine() {
        assertThatThrownBy(() -> replay("limit", Map.of("isge", 1000L))).isInstanceOf(TraceError.class)
                .hasMessageEndingWith("t.trace:10:1: NdkCreateQp returned STATUS_INVALID_PARAMETER (0xC000000D)");
    }

    @Test
    void onlyQpLineKeysMayBeOverridden() {
        assertThatThrownBy(() -> ReplayOptions.into(dir).withQp(Map.of("depth", 4L)))
                .hasMessage("'depth' is not a qp line key to override (valid: inline, iq, isge, rq, rsge)");
        assertThatThrownBy(() -> ReplayOptions.into(dir).withQp(Map.of("iq", -1L)))
                .hasMessage("qp iq must not be negative, got -1");
        assertThat(ReplayOptions.into(dir).withQp(Map.of("iq", 2L)).withRecord(dir.resolve("r.trace")).qp())
                .containsExactly(Map.entry("iq", 2L));
    }
}
