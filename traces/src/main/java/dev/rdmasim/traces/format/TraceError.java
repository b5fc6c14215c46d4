package dev.rdmasim.traces.format;

/**
 * A user error in a trace: {@link #getMessage()} is {@code file:line:col: what was expected}, ready to
 * print as it is. Unchecked, so accessors of {@link TraceLine} can throw it from anywhere.
 */
public final class TraceError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Position position;
    private final String detail;

    public TraceError(Position at, String message) {
        super(printable(at + ": " + message));
        this.position = at;
        this.detail = printable(message);
    }

    /** The longest message kept whole; longer ones (a token of a megabyte echoed) are cut. */
    private static final int MAX_MESSAGE = 400;

    /**
     * {@code s} safe to print on one line of a terminal: control characters (a trace's bytes echoed in a
     * message could move the cursor or clear the screen) are written as Java-style escapes (ESC becomes
     * backslash-u001b), and a message longer than a few hundred characters is cut, saying how much was left out.
     */
    public static String printable(String s) {
        StringBuilder b = null;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            boolean control = Character.isISOControl(c) || c == '\u2028' || c == '\u2029'
                    || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069');
            if (control && b == null) {
                b = new StringBuilder(n + 16).append(s, 0, i);
            }
            if (b != null) {
                if (control) {
                    switch (c) {
                        case '\t' -> b.append("\\t");
                        case '\n' -> b.append("\\n");
                        case '\r' -> b.append("\\r");
                        default -> b.append(String.format(java.util.Locale.US, "\\u%04x", (int) c));
                    }
                } else {
                    b.append(c);
                }
            }
        }
        String out = b == null ? s : b.toString();
        if (out.length() > MAX_MESSAGE) {
            int cut = MAX_MESSAGE - 60;
            if (Character.isHighSurrogate(out.charAt(cut - 1))) {
                cut--;
            }
            out = out.substring(0, cut) + "... (" + (out.length() - cut) + " more characters)";
        }
        return out;
    }

    public Position position() {
        return position;
    }

    /** The message without its position. */
    public String detail() {
        return detail;
    }
}
