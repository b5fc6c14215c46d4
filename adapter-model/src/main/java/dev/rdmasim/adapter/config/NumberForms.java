package dev.rdmasim.adapter.config;

/**
 * The two textual forms parameter values are checked against, scanned by hand: the registry parses every default
 * when a run starts, and compiling and running the equivalent regular expressions there cost a short run more
 * than the values themselves. {@code NumberFormsTest} holds the regular expressions and checks both agree on
 * seeded random text.
 */
final class NumberForms {
    private NumberForms() {
    }

    /**
     * Whether {@code t} is a plain non-negative decimal: digits with an optional fraction ({@code 1}, {@code 1.},
     * {@code 1.5}) or a fraction alone ({@code .5}), then an optional exponent ({@code e-6}).
     */
    static boolean isDecimal(String t) {
        int n = t.length();
        int i = digits(t, 0);
        boolean whole = i > 0;
        if (i < n && t.charAt(i) == '.') {
            int f = digits(t, i + 1);
            if (!whole && f == i + 1) {
                return false; // "." alone, or ".e5"
            }
            i = f;
        } else if (!whole) {
            return false;
        }
        if (i < n && (t.charAt(i) == 'e' || t.charAt(i) == 'E')) {
            int j = i + 1;
            if (j < n && (t.charAt(j) == '+' || t.charAt(j) == '-')) {
                j++;
            }
            int e = digits(t, j);
            if (e == j) {
                return false;
            }
            i = e;
        }
        return i == n;
    }

    /**
     * {@code t} as a number with a unit: the number (digits, optionally a point and more digits) and the unit (ASCII
     * letters, {@code µ} or {@code /}, possibly none) after optional white space; null when {@code t} is not of that
     * form.
     */
    static String[] scaled(String t) {
        int n = t.length();
        int i = digits(t, 0);
        if (i == 0) {
            return null;
        }
        if (i < n && t.charAt(i) == '.') {
            int f = digits(t, i + 1);
            if (f == i + 1) {
                return null;
            }
            i = f;
        }
        int numberEnd = i;
        while (i < n && isSpace(t.charAt(i))) {
            i++;
        }
        int unitStart = i;
        while (i < n && isUnitChar(t.charAt(i))) {
            i++;
        }
        return i == n ? new String[] {t.substring(0, numberEnd), t.substring(unitStart)} : null;
    }

    private static int digits(String t, int from) {
        int i = from;
        while (i < t.length() && t.charAt(i) >= '0' && t.charAt(i) <= '9') {
            i++;
        }
        return i;
    }

    /** What {@code \s} matches in a Java regular expression. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    private static boolean isUnitChar(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '\u00b5' || c == '/';
    }
}
