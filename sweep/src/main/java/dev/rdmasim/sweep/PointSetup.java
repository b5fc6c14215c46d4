package dev.rdmasim.sweep;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.traces.perf.PerfArgs;
import dev.rdmasim.traces.perf.PerfOptions;
import dev.rdmasim.traces.perf.PerfTest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How one point's values apply: the profile its hosts get, the perf flags it runs with, or the values its trace's
 * {@code qp} lines take. The same for checking a sweep up front and for running a point, so a point that passed
 * the check runs as checked.
 */
final class PointSetup {
    final List<SweepKey> keys;
    /** The base profile with the fixed overrides, then the swept profile keys, applied. */
    final Profile profile;
    /** Those overrides as {@code key=value}, fixed ones first: what a replay applies to every host. */
    final List<String> overrides;
    /** Perf workloads: the flags by short name, fixed ones first, then the swept ones in key order. */
    final Map<String, String> perfFlags = new LinkedHashMap<>();
    /** Trace workloads: values replacing those of every {@code qp} line, by line key. */
    final Map<String, Long> qpLine = new TreeMap<>();

    private PointSetup(Point point, Profile base) {
        keys = new ArrayList<>();
        for (String k : point.keys()) {
            keys.add(SweepKey.of(k, point.workload().isPerf()));
        }
        overrides = new ArrayList<>(point.overrides());
        if (point.workload().isPerf()) {
            perfFlags.putAll(PerfArgs.values(point.workload().perfArgs()));
        }
        for (int i = 0; i < keys.size(); i++) {
            SweepKey k = keys.get(i);
            String v = point.values().get(i);
            switch (k.kind()) {
                case PROFILE -> overrides.add(k.key() + "=" + v);
                case PERF_FLAG -> perfFlags.put(k.perfFlag(), v);
                case QP -> {
                    if (k.perfFlag() != null) {
                        perfFlags.put(k.perfFlag(), Long.toString(k.qpValue(v)));
                    } else {
                        qpLine.put(k.qpLineKey(), k.qpValue(v));
                    }
                }
            }
        }
        profile = base.withOverrides(overrides);
    }

    /** The setup of {@code point} on {@code base}; a bad override or a profile rule it breaks is an error. */
    static PointSetup of(Point point, Profile base) {
        return new PointSetup(point, base);
    }

    /** The setup of {@code point}, resolving its base profile first. */
    static PointSetup of(Point point) {
        return of(point, baseProfile(point.profile(), point.profileText()));
    }

    /** A built-in profile by name, or a profile file's text (the file's name naming it). */
    static Profile baseProfile(String profile, String profileText) {
        return profileText != null ? Profiles.parse(profile, profileText) : Profiles.load(profile);
    }

    /** The perf options of a perf point (its flags checked against its profile). */
    PerfOptions perfOptions(Point point) {
        try {
            return PerfArgs.options(PerfTest.fromLabel(point.workload().perfTest()), profile, point.seed(), perfFlags);
        } catch (IllegalArgumentException e) {
            StringBuilder as = new StringBuilder();
            for (SweepKey k : keys) {
                if (k.kind() == SweepKey.Kind.QP && e.getMessage().startsWith(k.perfFlag() + " ")) {
                    as.append(" (").append(k.key()).append(" is perf's ").append(k.perfFlag()).append(')');
                }
            }
            throw new IllegalArgumentException(e.getMessage() + as, e);
        }
    }

    /** Checks everything a point can be checked for without running it. */
    void check(Point point) {
        if (point.workload().isPerf()) {
            perfOptions(point);
        } else {
            for (int i = 0; i < keys.size(); i++) {
                if (keys.get(i).kind() == SweepKey.Kind.QP) {
                    keys.get(i).checkQpLimit(point.values().get(i), profile);
                }
            }
        }
    }
}
