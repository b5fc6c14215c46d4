package dev.rdmasim.kernel.wave;

import java.util.ArrayList;
import java.util.List;

/**
 * Selects signals by full name with globs: {@code *} matches any run of characters, dots included, and {@code ?}
 * matches exactly one character. A name is selected when it matches any of the filter's globs.
 */
public final class SignalFilter {

    /** Selects every signal. */
    public static final SignalFilter ALL = new SignalFilter(List.of("*"));

    /** Selects no signal. */
    public static final SignalFilter NONE = new SignalFilter(List.of());

    private final List<String> globs;

    private SignalFilter(List<String> globs) {
        this.globs = globs;
    }

    /**
     * Parses a comma-separated list of globs, e.g. {@code nicA.dma.*,*.tagsInUse}. Whitespace around each glob
     * and empty entries are ignored; a null, empty or blank list selects every signal.
     */
    public static SignalFilter parse(String globs) {
        if (globs == null) {
            return ALL;
        }
        List<String> parsed = new ArrayList<>();
        for (String glob : globs.split(",", -1)) {
            String trimmed = glob.strip();
            if (!trimmed.isEmpty()) {
                parsed.add(trimmed);
            }
        }
        return parsed.isEmpty() ? ALL : new SignalFilter(List.copyOf(parsed));
    }

    public boolean matches(String fullName) {
        for (String glob : globs) {
            if (globMatches(glob, fullName)) {
                return true;
            }
        }
        return false;
    }

    /** The globs of this filter, in the order given. */
    public List<String> globs() {
        return globs;
    }

    /**
     * Glob match without recursion or regexes: on a mismatch, backtrack only to the most recent {@code *} and let
     * it absorb one more character. Earlier stars never need revisiting, since the latest one can absorb whatever
     * they would.
     */
    private static boolean globMatches(String glob, String name) {
        int g = 0;
        int n = 0;
        int starGlob = -1;
        int starName = 0;
        while (n < name.length()) {
            if (g < glob.length() && glob.charAt(g) == '*') {
                starGlob = g++;
                starName = n;
            } else if (g < glob.length() && (glob.charAt(g) == '?' || glob.charAt(g) == name.charAt(n))) {
                g++;
                n++;
            } else if (starGlob >= 0) {
                g = starGlob + 1;
                n = ++starName;
            } else {
                return false;
            }
        }
        while (g < glob.length() && glob.charAt(g) == '*') {
            g++;
        }
        return g == glob.length();
    }

    @Override
    public String toString() {
        return globs.isEmpty() ? "SignalFilter[none]" : "SignalFilter" + globs;
    }
}
