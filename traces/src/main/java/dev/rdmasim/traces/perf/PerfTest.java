package dev.rdmasim.traces.perf;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The six perftest workloads: a verb, and bandwidth (streaming) or latency (one at a time). */
public enum PerfTest {
    SEND_BW(Verb.SEND, true),
    WRITE_BW(Verb.WRITE, true),
    READ_BW(Verb.READ, true),
    SEND_LAT(Verb.SEND, false),
    WRITE_LAT(Verb.WRITE, false),
    READ_LAT(Verb.READ, false);

    /** The operation a test issues. */
    public enum Verb { SEND, WRITE, READ }

    private final Verb verb;
    private final boolean bandwidth;

    PerfTest(Verb verb, boolean bandwidth) {
        this.verb = verb;
        this.bandwidth = bandwidth;
    }

    public Verb verb() {
        return verb;
    }

    public boolean isBandwidth() {
        return bandwidth;
    }

    /** The name on the command line and in results: {@code send_bw}, {@code read_lat}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** perftest's title for the test, e.g. "RDMA_Write BW Test". */
    public String title() {
        String v = switch (verb) {
            case SEND -> "Send";
            case WRITE -> "RDMA_Write";
            case READ -> "RDMA_Read";
        };
        return v + (bandwidth ? " BW Test" : " Latency Test");
    }

    /** The test named {@code label}; an unknown name is an error listing the valid ones. */
    public static PerfTest fromLabel(String label) {
        for (PerfTest t : values()) {
            if (t.label().equals(label)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown test '" + label + "': expected one of "
                + Arrays.stream(values()).map(PerfTest::label).collect(Collectors.joining(", ")));
    }
}
