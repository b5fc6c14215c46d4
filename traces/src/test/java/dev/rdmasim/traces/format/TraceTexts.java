package dev.rdmasim.traces.format;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test helpers: read or check a trace given as text, named {@code t.trace}. */
final class TraceTexts {
    static final String HEADER = "rdmasim-trace 1\n";
    /** Two hosts with a CQ, PD, two 64 KiB regions and a QP each, connected: lines 2 to 14. */
    static final String SETUP = HEADER
            + "host A profile=default\n"
            + "host B\n"
            + "cq A.cq depth=64\n"
            + "cq B.cq depth=64\n"
            + "pd A.pd\n"
            + "pd B.pd\n"
            + "mr A.src pd=A.pd size=64KiB access=LOCAL_WRITE\n"
            + "mr B.dst pd=B.pd size=64KiB access=LOCAL_WRITE|REMOTE_WRITE\n"
            + "qp A.qp pd=A.pd rcq=A.cq icq=A.cq iq=128 rq=16 isge=2 rsge=1 inline=64\n"
            + "qp B.qp pd=B.pd rcq=B.cq icq=B.cq iq=16 rq=128 isge=1 rsge=1 inline=0\n"
            + "connect A.qp B.qp port=7471\n"
            + "mr A.dst pd=A.pd size=4KiB access=REMOTE_WRITE\n"
            + "mr B.src pd=B.pd size=4KiB\n";
    /** The number of lines of {@link #SETUP}. */
    static final int SETUP_LINES = 14;

    private TraceTexts() {
    }

    static List<TraceLine> read(String text) {
        List<TraceLine> lines = new ArrayList<>();
        try (TraceReader r = new TraceReader(new StringReader(text), "t.trace")) {
            for (TraceLine l = r.next(); l != null; l = r.next()) {
                lines.add(l);
            }
        }
        return lines;
    }

    static TraceChecker.Summary check(String text) {
        return TraceChecker.check(new StringReader(text), "t.trace", Path.of("."));
    }

    /** The message of the error reading (check=false) or checking the text throws, or "no error". */
    static String error(String text, boolean check) {
        try {
            if (check) {
                check(text);
            } else {
                read(text);
            }
            return "no error";
        } catch (TraceError e) {
            return e.getMessage();
        }
    }
}
