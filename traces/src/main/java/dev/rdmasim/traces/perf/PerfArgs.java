package dev.rdmasim.traces.perf;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.traces.format.Suggest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * perftest's flags of the NDK tests, as words of a command line, turned into {@link PerfOptions}: the one parser
 * behind {@code rdmasim perf} (which declares its options from {@link #flags()}) and the perf workloads of sweeps.
 * A flag is written {@code -s 64}, {@code -s=64}, {@code --size 64} or {@code --size=64}; a mistake is an
 * {@link IllegalArgumentException} naming the flag.
 */
public final class PerfArgs {
    /**
     * One flag.
     *
     * @param name        the short name, {@code -s}
     * @param longName    the long name, {@code --size}
     * @param label       what its value is ({@code BYTES}), or null for a switch without a value
     * @param description one sentence with the default, for help texts
     */
    public record Flag(String name, String longName, String label, String description) {
        public boolean takesValue() {
            return label != null;
        }
    }

    private static final List<Flag> FLAGS = List.of(
            new Flag("-s", "--size", "BYTES", "Message size (default: 65536 for bw, 2 for lat; at most 8388608)."),
            new Flag("-a", "--all", null, "Run sizes 2 B to 8 MiB, doubling."),
            new Flag("-n", "--iters", "N",
                    "Iterations per size (and per QP for bw) (default: 5000 for bw, 1000 for lat)."),
            new Flag("-t", "--tx-depth", "N", "Requests outstanding per QP (default: the profile's qp.initiatorQueueDepth)."),
            new Flag("-r", "--rx-depth", "N",
                    "Receives kept posted per QP in send tests (default: the profile's qp.receiveQueueDepth)."),
            new Flag("-I", "--inline_size", "BYTES",
                    "Requests up to this size go INLINE (default: the profile's qp.inlineDataSize; 0 for read)."),
            new Flag("-q", "--qp", "N", "QPs, bw tests (default: 1)."),
            new Flag("-l", "--post_list", "N",
                    "Requests per doorbell: all but the last of each list posted with DEFER, bw tests (default: 1)."),
            new Flag("-Q", "--cq-mod", "N", "Signal every N-th request, the others SILENT_SUCCESS (default: the post list"
                    + " if -l > 1, else min(100, ceil(depth / 2)))."),
            new Flag("-m", "--mtu", "BYTES", "Link MTU: 256, 512, 1024, 2048 or 4096 (default: the profile's link.mtu)."));

    private PerfArgs() {
    }

    /** Every flag, in the order help lists them. */
    public static List<Flag> flags() {
        return FLAGS;
    }

    /** The flag with this short or long name, or null. */
    public static Flag find(String name) {
        for (Flag f : FLAGS) {
            if (f.name().equals(name) || f.longName().equals(name)) {
                return f;
            }
        }
        return null;
    }

    /** The flag with this short or long name; an unknown one is an error listing the valid ones. */
    public static Flag lookup(String name) {
        Flag f = find(name);
        if (f == null) {
            String[] names = FLAGS.stream().map(Flag::name).toArray(String[]::new);
            String hint = Suggest.didYouMean(name, names);
            throw new IllegalArgumentException("unknown perf flag '" + name + "'" + hint + " (valid: "
                    + String.join(", ", names) + ")");
        }
        return f;
    }

    /** The words of {@code text}, split at white space (flags written as one string: {@code "-s 64 -n 1000"}). */
    public static List<String> split(String text) {
        String t = text.strip();
        return t.isEmpty() ? List.of() : List.of(t.split("\\s+"));
    }

    /**
     * Parses {@code args} into the values they give, by short name, in the order given: {@code -a} maps to "true".
     * An unknown flag, a missing or non-numeric value, or a flag given twice is an error.
     */
    public static Map<String, String> values(List<String> args) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String word = args.get(i);
            String value = null;
            int eq = word.indexOf('=');
            String name = eq > 0 && word.startsWith("-") ? word.substring(0, eq) : word;
            if (!name.startsWith("-")) {
                throw new IllegalArgumentException("expected a perf flag such as -s or --size, got '" + word + "'");
            }
            Flag f = lookup(name);
            if (eq > 0) {
                value = word.substring(eq + 1);
            }
            if (f.takesValue()) {
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw new IllegalArgumentException(name + " needs a value (" + f.label() + ")");
                    }
                    value = args.get(++i);
                }
                if (!value.matches("-?\\d{1,10}") || Long.parseLong(value) != (int) Long.parseLong(value)) {
                    throw new IllegalArgumentException(name + " takes a whole number (" + f.label() + "), got '"
                            + value + "'");
                }
            } else {
                if (value != null) {
                    throw new IllegalArgumentException(name + " takes no value, got '" + word + "'");
                }
                value = "true";
            }
            if (out.put(f.name(), value) != null) {
                throw new IllegalArgumentException(f.name() + " is given twice");
            }
        }
        return out;
    }

    /** The options {@code args} ask for on {@code test} with hosts of {@code profile}; a mistake names the flag. */
    public static PerfOptions parse(PerfTest test, Profile profile, long seed, List<String> args) {
        return options(test, profile, seed, values(args));
    }

    /** As {@link #parse}, from values by short name (what {@link #values} returns). */
    public static PerfOptions options(PerfTest test, Profile profile, long seed, Map<String, String> values) {
        for (String name : values.keySet()) {
            lookup(name);
        }
        if (values.containsKey("-a") && values.containsKey("-s")) {
            throw new IllegalArgumentException("-a runs every size: give -a or -s, not both");
        }
        PerfOptions.Builder b = PerfOptions.builder(test, profile).seed(seed);
        for (Map.Entry<String, String> e : values.entrySet()) {
            String v = e.getValue();
            switch (e.getKey()) {
                case "-a" -> b.allSizes();
                case "-s" -> b.size(number(e.getKey(), v));
                case "-n" -> b.iterations(number(e.getKey(), v));
                case "-t" -> b.txDepth(number(e.getKey(), v));
                case "-r" -> b.rxDepth(number(e.getKey(), v));
                case "-I" -> b.inlineSize(number(e.getKey(), v));
                case "-q" -> b.qps(number(e.getKey(), v));
                case "-l" -> b.postList(number(e.getKey(), v));
                case "-Q" -> b.cqMod(number(e.getKey(), v));
                case "-m" -> b.mtu(number(e.getKey(), v));
                default -> throw new IllegalStateException("flag without a builder call: " + e.getKey());
            }
        }
        return b.build();
    }

    private static int number(String flag, String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " takes a whole number, got '" + v + "'");
        }
    }
}
