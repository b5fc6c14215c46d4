package dev.rdmasim.sweep;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Parameter;
import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.ProfileException;
import dev.rdmasim.traces.perf.PerfArgs;
import java.util.List;

/**
 * What a swept key is and how it applies to a point.
 * <ul>
 * <li>{@link Kind#PROFILE}: any profile parameter ({@code pcie.mps}), applied to every host's profile after the
 * sweep's fixed overrides.</li>
 * <li>{@link Kind#QP}: one of the QP parameters of {@code NdkCreateQp} ({@code qp.initiatorQueueDepth},
 * {@code qp.receiveQueueDepth}, {@code qp.initiatorRequestSge}, {@code qp.receiveRequestSge},
 * {@code qp.inlineDataSize}): a trace's every {@code qp} line takes the value; a perf workload takes it as its flag
 * ({@code -t}, {@code -r}, {@code -I}); perf's QPs have one SGE each, so the SGE keys apply to traces only.</li>
 * <li>{@link Kind#PERF_FLAG}: a perf flag that takes a value ({@code -s}, {@code -n}, {@code -t}, ...), perf
 * workloads only.</li>
 * </ul>
 *
 * @param key       the key as written
 * @param kind      what it is
 * @param perfFlag  the perf flag it sets (short name), or null
 * @param qpLineKey the {@code qp} line key it replaces ({@code iq}, ...), or null
 */
public record SweepKey(String key, Kind kind, String perfFlag, String qpLineKey) {
    /** Kinds of keys. */
    public enum Kind { PROFILE, QP, PERF_FLAG }

    /** A QP parameter: its profile parameter, its qp line key, its perf flag (or null), and the adapter's limit. */
    private record Qp(Parameter<Long> parameter, String lineKey, String flag, Parameter<Long> limit, long min) {
    }

    private static final List<Qp> QP = List.of(
            new Qp(QP_INITIATOR_QUEUE_DEPTH, "iq", "-t", NDK_MAX_INITIATOR_QUEUE_DEPTH, 1),
            new Qp(QP_RECEIVE_QUEUE_DEPTH, "rq", "-r", NDK_MAX_RECEIVE_QUEUE_DEPTH, 1),
            new Qp(QP_INITIATOR_REQUEST_SGE, "isge", null, NDK_MAX_INITIATOR_REQUEST_SGE, 1),
            new Qp(QP_RECEIVE_REQUEST_SGE, "rsge", null, NDK_MAX_RECEIVE_REQUEST_SGE, 1),
            new Qp(QP_INLINE_DATA_SIZE, "inline", "-I", NDK_MAX_INLINE_DATA_SIZE, 0));

    /**
     * Classifies {@code key} for a perf workload ({@code perf}) or a trace; an unknown key, or one the workload cannot
     * take, is an error saying why and what would be valid.
     */
    public static SweepKey of(String key, boolean perf) {
        if (key.startsWith("-")) {
            if (!perf) {
                throw new IllegalArgumentException("perf flag " + key + " applies to perf workloads; this sweep "
                        + "replays a trace (sweep profile keys or qp.* keys)");
            }
            PerfArgs.Flag f = PerfArgs.lookup(key);
            if (!f.takesValue()) {
                throw new IllegalArgumentException(f.name() + " takes no value and cannot be swept (sweep -s instead)");
            }
            return new SweepKey(key, Kind.PERF_FLAG, f.name(), null);
        }
        for (Qp q : QP) {
            if (q.parameter.key().equals(key)) {
                if (perf && q.flag == null) {
                    throw new IllegalArgumentException(key + " cannot be swept on a perf workload: its QPs have one "
                            + "SGE each (sweep it with a trace)");
                }
                return new SweepKey(key, Kind.QP, perf ? q.flag : null, q.lineKey);
            }
        }
        if (Parameters.byKey(key) == null) {
            throw new IllegalArgumentException("unknown parameter '" + key + "'; closest: "
                    + String.join(", ", Parameters.closest(key)) + (perf ? " (or a perf flag: -s, -n, -t, ...)" : ""));
        }
        return new SweepKey(key, Kind.PROFILE, null, null);
    }

    /**
     * Checks one value on its own (syntax and the key's own range); what depends on the other keys (the profile's
     * rules and limits, perf's flag checks) is checked per point.
     */
    public void checkValue(String value) {
        switch (kind) {
            case PROFILE -> Parameters.byKey(key).parse(value);
            case QP -> qpValue(value);
            case PERF_FLAG -> {
                if (!value.matches("-?\\d{1,9}")) {
                    throw new IllegalArgumentException(key + " takes a whole number, got '" + value + "'");
                }
            }
        }
    }

    /** A QP key's value (sizes may carry units, e.g. {@code 4KiB}); below its minimum is an error. */
    long qpValue(String value) {
        Qp q = qp();
        long v;
        try {
            v = q.parameter.type().parse(value);
        } catch (ProfileException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage());
        }
        if (v < q.min) {
            throw new IllegalArgumentException(key + " = " + value + ": must be at least " + q.min);
        }
        return v;
    }

    /** Checks a QP key's value against the adapter's limit in {@code profile} (what NdkCreateQp would refuse). */
    void checkQpLimit(String value, Profile profile) {
        Qp q = qp();
        long v = qpValue(value);
        long max = profile.getLong(q.limit);
        if (v > max) {
            throw new IllegalArgumentException(key + " = " + value + " is above the adapter's " + q.limit.key() + " "
                    + q.limit.format(max));
        }
    }

    private Qp qp() {
        for (Qp q : QP) {
            if (q.parameter.key().equals(key)) {
                return q;
            }
        }
        throw new IllegalStateException("not a qp key: " + key);
    }
}
