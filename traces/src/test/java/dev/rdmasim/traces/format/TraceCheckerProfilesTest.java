package dev.rdmasim.traces.format;

import static dev.rdmasim.traces.format.TraceTexts.HEADER;
import static dev.rdmasim.traces.format.TraceTexts.SETUP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Parameters;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the first pass takes from outside the trace: the run's default profile and overrides, profile files next to
 * the trace (by extension or path), hosts whose names share a prefix, the CQs a replay must remember contexts for,
 * and the names a dump may take.
 */
class TraceCheckerProfilesTest {
    @TempDir
    Path dir;

    private static final String QP_INLINE_900 = "qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=1 rq=1 isge=1 rsge=1 inline=900\n";

    private String checkFile(String text, String dflt, List<String> overrides) throws IOException {
        Path f = dir.resolve("t.trace");
        Files.writeString(f, text);
        try {
            TraceChecker.Summary s = TraceChecker.check(f, dflt, overrides);
            return "no error " + s;
        } catch (TraceError e) {
            return e.getMessage().replace(f.toString(), "t.trace");
        }
    }

    @Test
    void hostsWithoutAProfileTakeTheRunsDefaultAndEveryHostTheRunsOverrides() throws IOException {
        // cx3-like allows 912 bytes inline, the default profile 476.
        String t = SETUP.replace("host A profile=default", "host A") + QP_INLINE_900;
        assertThat(checkFile(t, "cx3-like", List.of())).isEqualTo("no error " + new TraceChecker.Summary(2, 0, 14));
        assertThat(checkFile(t, "default", List.of())).isEqualTo("t.trace:15:66: inline 900 is above the profile's"
                + " maximum inline data size (ndk.maxInlineDataSize = 476B)");
        assertThat(checkFile(t, "cx3-like", List.of("ndk.maxInlineDataSize=800"))).isEqualTo("t.trace:15:66: inline 900"
                + " is above the profile's maximum inline data size (ndk.maxInlineDataSize = 800B)");
        // A host naming its profile keeps it whatever the run's default.
        assertThat(checkFile(SETUP + QP_INLINE_900, "cx3-like", List.of())).startsWith("t.trace:15:66: inline 900 is above");
        assertThat(TraceChecker.check(Files.writeString(dir.resolve("u.trace"), SETUP)))
                .isEqualTo(new TraceChecker.Summary(2, 0, 13));
    }

    @Test
    void profileFilesAreFoundNextToTheTraceByExtensionOrPath() throws IOException {
        Files.writeString(dir.resolve("small.yml"), "extends: default\nndk:\n  maxCqDepth: 100\n");
        Files.createDirectories(dir.resolve("p"));
        Files.writeString(dir.resolve("p/small"), "extends: default\nndk:\n  maxCqDepth: 50\n");
        assertThat(checkFile(HEADER + "host A profile=small.yml\ncq A.c depth=100\ncq A.d depth=101\n", "default",
                List.of())).isEqualTo("t.trace:4:14: depth 101 is above the profile's maximum CQ depth (ndk.maxCqDepth = 100)");
        assertThat(checkFile(HEADER + "host A profile=p/small\ncq A.c depth=51\n", "default", List.of()))
                .isEqualTo("t.trace:3:14: depth 51 is above the profile's maximum CQ depth (ndk.maxCqDepth = 50)");
        // On this system a backslash is part of a file name, but it marks a path all the same.
        Files.writeString(dir.resolve("q\\small"), "extends: default\nndk:\n  maxCqDepth: 40\n");
        assertThat(checkFile(HEADER + "host A profile=q\\small\ncq A.c depth=41\n", "default", List.of()))
                .isEqualTo("t.trace:3:14: depth 41 is above the profile's maximum CQ depth (ndk.maxCqDepth = 40)");
        String abs = dir.resolve("small.yml").toAbsolutePath().toString();
        assertThat(checkFile(HEADER + "host A profile=" + abs + "\ncq A.c depth=101\n", "default", List.of()))
                .startsWith("t.trace:3:14: depth 101 is above");
    }

    @Test
    void theProfileOfAHostLineWithAndWithoutTheRunsOverrides() {
        TraceLine host = TraceTexts.read(HEADER + "host A set=ndk.maxCqDepth=77\n").get(0);
        assertThat(TraceChecker.hostProfile(host, null).getLong(Parameters.NDK_MAX_CQ_DEPTH)).isEqualTo(77);
        assertThat(TraceChecker.hostProfile(host, null, "cx3-like", List.of()).getLong(Parameters.NDK_MAX_INLINE_DATA_SIZE))
                .isEqualTo(912);
        assertThat(TraceChecker.hostProfile(host, null, "default", List.of("ndk.maxCqDepth=66"))
                .getLong(Parameters.NDK_MAX_CQ_DEPTH)).isEqualTo(66);
        // Without a directory, a profile file is relative to the working directory.
        TraceLine file = TraceTexts.read(HEADER + "host A profile=no-such-profile.yaml\n").get(0);
        assertThatThrownBy(() -> TraceChecker.hostProfile(file, null)).isInstanceOf(TraceError.class)
                .hasMessage("t.trace:2:16: no-such-profile.yaml: cannot read profile file (NoSuchFileException:"
                        + " no-such-profile.yaml)");
        TraceLine pd = TraceTexts.read(HEADER + "pd A.pd\n").get(0);
        assertThatThrownBy(() -> TraceChecker.hostProfile(pd, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a host line: ");
    }

    @Test
    void hostsWhoseNamesShareAPrefixAreTold() {
        String t = HEADER + "host A\nhost AB\ncq AB.cq depth=4\npd AB.pd\npd A.pd\n"
                + "qp AB.qp pd=AB.pd rcq=AB.cq icq=AB.cq iq=1 rq=1 isge=1 rsge=1 inline=0\n";
        assertThat(TraceTexts.error(t, true)).isEqualTo("no error");
        assertThat(TraceTexts.error(t + "qp A.qp pd=A.pd rcq=AB.cq icq=AB.cq iq=1 rq=1 isge=1 rsge=1 inline=0\n", true))
                .isEqualTo("t.trace:8:21: 'AB.cq' is on host AB, but 'A.qp' is on host A");
        assertThat(TraceTexts.error(HEADER + "host AB\ncq A.cq depth=4\n", true))
                .isEqualTo("t.trace:3:4: unknown host 'A' in 'A.cq' (hosts: AB)");
        assertThat(TraceTexts.error(HEADER + "host A\ncq AB.cq depth=4\n", true))
                .isEqualTo("t.trace:3:4: unknown host 'AB' in 'AB.cq' (hosts: A)");
    }

    @Test
    void aReplayIsToldWhichCqsAreWaitedOnByContext() {
        String t = SETUP + "wait A.cq count=1\nwait B.cq ctx=r\nwait B.cq ctx=s\npoll A.cq\n";
        try (TraceReader r = new TraceReader(new StringReader(t), "t.trace")) {
            TraceChecker.Checked c = TraceChecker.checkForReplay(r, dir, "default", List.of());
            assertThat(c.summary()).isEqualTo(new TraceChecker.Summary(2, 4, 13));
            assertThat(c.waitedByContext()).containsExactly("B.cq");
        }
    }

    @Test
    void aQpsPdAndCqsMustBeOnItsHost() {
        String qp = "qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=1 rq=1 isge=1 rsge=1 inline=0\n";
        assertThat(TraceTexts.error(SETUP + qp, true)).isEqualTo("no error");
        assertThat(TraceTexts.error(SETUP + qp.replace("pd=A.pd", "pd=B.pd"), true))
                .isEqualTo("t.trace:15:12: 'B.pd' is on host B, but 'A.q2' is on host A");
        assertThat(TraceTexts.error(SETUP + qp.replace("rcq=A.cq", "rcq=B.cq"), true))
                .isEqualTo("t.trace:15:21: 'B.cq' is on host B, but 'A.q2' is on host A");
    }

    @Test
    void emptyTransfersEndAtByteZeroOfTheirRegions() {
        assertThat(TraceTexts.error(SETUP + "send A.qp ctx=s sge=A.src+0:0\nwrite A.qp ctx=w remote=B.dst+0\n"
                + "read A.qp ctx=r sge=A.src+0:0 remote=B.dst+0\n", true)).isEqualTo("no error");
    }

    @Test
    void aLineAnchoredToAnEarlierLineIsCheckedAgainstThatLinesTime() {
        // Iteration 0's line sets anchor 0 at 2^62 - 904 ps; iteration 1's runs 1000 ps after it, past 2^62.
        String t = SETUP + "repeat 2 as i every=1000ps\n  +4611686018427387000ps poll A.cq\nend\n";
        assertThat(TraceTexts.error(t, true)).isEqualTo("t.trace:16:3: this line runs at 4611686018427388000 ps or later,"
                + " past the latest time a trace may use (2^62 ps, about 53 days)");
        assertThat(TraceTexts.error(t.replace("every=1000ps", "every=904ps"), true)).isEqualTo("no error");
    }

    @Test
    void aCallCountsAsACallAndADeclarationAsADeclaration() {
        assertThat(TraceTexts.check(SETUP + "flush A.qp\npd A.p2\nflush B.qp\n"))
                .isEqualTo(new TraceChecker.Summary(2, 2, 14));
    }

    @Test
    void dumpNamesThatAreNotPlainFilesAreRefused() {
        for (String name : List.of(".", "..", "x.partial", "a/b", "a\\b", "a:b")) {
            assertThat(TraceTexts.error(SETUP + "dump A.src+0:8 file=" + name + "\n", true))
                    .as(name).startsWith("t.trace:15:21: expected a file name of letters, digits");
        }
        assertThat(TraceTexts.error(SETUP + "dump A.src+0:8 file=.a_b-9.Partial\n", true)).isEqualTo("no error");
        assertThat(TraceTexts.error(SETUP + "dump A.src+0:8 file=..x\ndump A.src+0:8 file=x.\n", true)).isEqualTo("no error");
    }

    @Test
    void aRangeCheckedOrDumpedPastTheRangeOfALongSaysWhereItEnds() {
        assertThat(TraceTexts.error(SETUP + "check A.src+9223372036854775807:2 fill=zero\n", true))
                .isEqualTo("t.trace:15:7: range A.src+9223372036854775807:2 ends at byte 2^63 or beyond, past the"
                        + " end of 'A.src' (size 65536)");
        assertThat(TraceTexts.error(SETUP + "check A.src+0:4 same=B.dst+9223372036854775807\n", true))
                .startsWith("t.trace:15:22: range B.dst+9223372036854775807 of 4 bytes ends at byte 2^63 or beyond, past");
        assertThat(TraceTexts.error(SETUP + "check A.src+65532:4 same=B.dst+65532\ndump A.src+65535:1 file=x\n", true))
                .isEqualTo("no error");
        assertThat(TraceTexts.error(SETUP + "dump A.src+0:0 file=x\n", true))
                .isEqualTo("t.trace:15:6: a range of dump must hold at least 1 byte");
    }
}
