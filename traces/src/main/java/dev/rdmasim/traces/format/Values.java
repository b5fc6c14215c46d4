package dev.rdmasim.traces.format;

import dev.rdmasim.adapter.config.ByteUnits;
import dev.rdmasim.ndk.NdkConstants;
import dev.rdmasim.ndk.NdkOpFlags;
import dev.rdmasim.ndk.NtStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parsers for the value kinds of the format, by hand (no regex: they run once per value of every
 * expanded line). Each takes the text and where it starts; a bad value is a {@link TraceError} there
 * saying what was expected. {@code exact} says the text is the file's own (not an expansion), so an
 * error inside it can point at its own column.
 */
final class Values {
    static final String INTEGER_EXAMPLE = "expected an integer such as 128 or 0x5A";
    static final String SIZE_EXAMPLE = "expected a size such as 4KiB";
    static final String TIME_EXAMPLE = "expected a time such as 1.5us";

    static final String[] CALL_FLAG_NAMES = {"SILENT_SUCCESS", "READ_FENCE", "SEND_AND_SOLICIT_EVENT", "INLINE",
        "RDMA_READ_LOCAL_INVALIDATE", "DEFER"};
    static final int[] CALL_FLAG_VALUES = {NdkOpFlags.NDK_OP_FLAG_SILENT_SUCCESS, NdkOpFlags.NDK_OP_FLAG_READ_FENCE,
        NdkOpFlags.NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, NdkOpFlags.NDK_OP_FLAG_INLINE,
        NdkOpFlags.NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, NdkOpFlags.NDK_OP_FLAG_DEFER};
    static final String[] MR_FLAG_NAMES = {"LOCAL_WRITE", "REMOTE_READ", "REMOTE_WRITE", "RDMA_READ_SINK"};
    static final int[] MR_FLAG_VALUES = {NdkConstants.NDK_MR_FLAG_ALLOW_LOCAL_WRITE,
        NdkConstants.NDK_MR_FLAG_ALLOW_REMOTE_READ, NdkConstants.NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
        NdkConstants.NDK_MR_FLAG_RDMA_READ_SINK};
    static final String[] NOTIFY_NAMES = {"ANY", "SOLICITED", "ERRORS"};
    static final int[] NOTIFY_VALUES = {NdkConstants.NDK_CQ_NOTIFY_ANY, NdkConstants.NDK_CQ_NOTIFY_SOLICITED,
        NdkConstants.NDK_CQ_NOTIFY_ERRORS};

    private static final String[] TIME_UNITS = {"ps", "ns", "us", "ms", "s"};
    /** Decimal digits of each time unit in picoseconds. */
    private static final int[] TIME_DIGITS = {0, 3, 6, 9, 12};

    private Values() {
    }

    /** "expected ... such as ..." for a number kind. */
    static String example(Schema.Kind kind) {
        return switch (kind) {
            case INTEGER -> INTEGER_EXAMPLE;
            case SIZE -> SIZE_EXAMPLE;
            case TIME -> TIME_EXAMPLE;
            default -> throw new IllegalArgumentException("not a number kind: " + kind);
        };
    }

    static TraceError error(String file, int line, int col, String message) {
        return new TraceError(new Position(file, line, col), message);
    }

    private static TraceError expected(String what, String text, String file, int line, int col) {
        return error(file, line, col, what + ", got '" + text + "'");
    }

    /** A non-negative decimal or {@code 0x} hexadecimal integer. */
    static long integer(String s, String file, int line, int col) {
        long v = digits(s, 0, s.length());
        if (v == BAD) {
            throw expected(INTEGER_EXAMPLE, s, file, line, col);
        }
        if (v == TOO_LARGE) {
            throw error(file, line, col, INTEGER_EXAMPLE + ", got '" + s + "' (too large)");
        }
        return v;
    }

    private static final long BAD = -1;
    private static final long TOO_LARGE = -2;

    /** The integer in s[from, to): decimal, or hex after 0x; BAD or TOO_LARGE. */
    private static long digits(String s, int from, int to) {
        if (from >= to) {
            return BAD;
        }
        if (to - from > 2 && s.charAt(from) == '0' && (s.charAt(from + 1) == 'x' || s.charAt(from + 1) == 'X')) {
            long v = 0;
            for (int i = from + 2; i < to; i++) {
                int d = Character.digit(s.charAt(i), 16);
                if (d < 0) {
                    return BAD;
                }
                if (v > (Long.MAX_VALUE >> 4)) {
                    return TOO_LARGE;
                }
                v = (v << 4) | d;
            }
            return v;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return BAD;
            }
            if (v > (Long.MAX_VALUE - (c - '0')) / 10) {
                return TOO_LARGE;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** An integer with an optional unit of {@link ByteUnits}: B, KiB, MiB, ... (any case; KB, MB, ... refused). */
    static long size(String s, String file, int line, int col) {
        int n = s.length();
        int end = n;
        boolean hex = n > 2 && s.charAt(0) == '0' && (s.charAt(1) == 'x' || s.charAt(1) == 'X');
        if (!hex) {
            while (end > 0 && !isDigit(s.charAt(end - 1))) {
                end--;
            }
        }
        long factor = 1;
        if (end < n) {
            factor = ByteUnits.factor(s, end, n);
            if (factor == 0) {
                String reason = ByteUnits.decimalUnitReason(s.substring(0, end), s.substring(end));
                if (reason != null) {
                    throw error(file, line, col, SIZE_EXAMPLE + ", got '" + s + "' (" + reason + ")");
                }
                throw expected(SIZE_EXAMPLE, s, file, line, col);
            }
        }
        long v = digits(s, 0, end);
        if (v == BAD) {
            throw expected(SIZE_EXAMPLE, s, file, line, col);
        }
        if (v == TOO_LARGE || v > Long.MAX_VALUE / factor) {
            throw error(file, line, col, SIZE_EXAMPLE + ", got '" + s + "' (too large)");
        }
        return v * factor;
    }

    /** A decimal number with a unit ps, ns, us, ms or s, in picoseconds; it must be a whole number of them. */
    static long time(String s, String file, int line, int col) {
        int n = s.length();
        int end = n;
        while (end > 0 && Character.isLetter(s.charAt(end - 1))) {
            end--;
        }
        if (end == n) {
            throw error(file, line, col, TIME_EXAMPLE + ", got '" + s + "' (a time needs a unit: ps, ns, us, ms or s)");
        }
        int u = indexOfIgnoreCase(TIME_UNITS, s, end, n);
        if (u < 0 || end == 0) {
            throw expected(TIME_EXAMPLE, s, file, line, col);
        }
        int unitDigits = TIME_DIGITS[u];
        long v = 0;
        int fractionDigits = -1; // -1: no point yet
        boolean any = false;
        for (int i = 0; i < end; i++) {
            char c = s.charAt(i);
            if (c == '.' && fractionDigits < 0) {
                fractionDigits = 0;
                continue;
            }
            if (!isDigit(c)) {
                throw expected(TIME_EXAMPLE, s, file, line, col);
            }
            any = true;
            if (fractionDigits >= 0) {
                fractionDigits++;
                if (fractionDigits > unitDigits) {
                    if (c != '0') {
                        throw error(file, line, col, "time '" + s + "' is not a whole number of picoseconds");
                    }
                    continue;
                }
            }
            if (v > (Long.MAX_VALUE - 9) / 10) {
                throw error(file, line, col, TIME_EXAMPLE + ", got '" + s + "' (too large)");
            }
            v = v * 10 + (c - '0');
        }
        if (!any) {
            throw expected(TIME_EXAMPLE, s, file, line, col);
        }
        int scale = unitDigits - Math.max(0, Math.min(fractionDigits, unitDigits));
        for (int i = 0; i < scale; i++) {
            if (v > Long.MAX_VALUE / 10) {
                throw error(file, line, col, TIME_EXAMPLE + ", got '" + s + "' (too large)");
            }
            v *= 10;
        }
        return v;
    }

    /**
     * The factor of a unit written after a number of this kind ("" for none): 1 for an integer, the
     * unit's bytes for a size, its picoseconds for a time; 0 when the unit does not belong to the kind.
     */
    static long unitFactor(Schema.Kind kind, String unit) {
        switch (kind) {
            case INTEGER:
                return unit.isEmpty() ? 1 : 0;
            case SIZE:
                if (unit.isEmpty()) {
                    return 1;
                }
                return ByteUnits.factor(unit);
            case TIME:
                int t = indexOfIgnoreCase(TIME_UNITS, unit, 0, unit.length());
                return t < 0 ? 0 : POWERS_OF_TEN[TIME_DIGITS[t]];
            default:
                return 0;
        }
    }

    private static final long[] POWERS_OF_TEN = {1, 10, 100, 1000, 10_000, 100_000, 1000_000, 10_000_000,
        100_000_000, 1000_000_000, 10_000_000_000L, 100_000_000_000L, 1000_000_000_000L};

    static int callFlags(String s, String file, int line, int col, boolean exact) {
        return flags(s, CALL_FLAG_NAMES, CALL_FLAG_VALUES, "flag", file, line, col, exact);
    }

    static int mrFlags(String s, String file, int line, int col, boolean exact) {
        return flags(s, MR_FLAG_NAMES, MR_FLAG_VALUES, "access flag", file, line, col, exact);
    }

    static int notifyType(String s, String file, int line, int col) {
        int i = indexOfIgnoreCase(NOTIFY_NAMES, s, 0, s.length());
        if (i < 0) {
            throw error(file, line, col, "unknown notification type '" + s + "' (expected " + String.join(", ", NOTIFY_NAMES)
                    + ")" + Suggest.didYouMean(s, NOTIFY_NAMES));
        }
        return NOTIFY_VALUES[i];
    }

    private static int flags(String s, String[] names, int[] values, String what, String file, int line, int col,
            boolean exact) {
        int v = 0;
        int from = 0;
        while (true) {
            int bar = s.indexOf('|', from);
            int to = bar < 0 ? s.length() : bar;
            int i = indexOfIgnoreCase(names, s, from, to);
            if (i < 0) {
                String name = s.substring(from, to);
                int at = exact ? col + from : col;
                if (name.isEmpty()) {
                    throw error(file, line, at, "expected a " + what + " name before or after '|' in '" + s + "'");
                }
                throw error(file, line, at, "unknown " + what + " '" + name + "' (expected " + String.join(", ", names)
                        + ")" + Suggest.didYouMean(name, names));
            }
            v |= values[i];
            if (bar < 0) {
                return v;
            }
            from = bar + 1;
        }
    }

    /** Comma-separated {@code MR+OFFSET:LENGTH} buffers. */
    static List<Buffer> buffers(String s, String file, int line, int col, boolean exact) {
        int comma = s.indexOf(',');
        if (comma < 0) {
            return Collections.singletonList(buffer(s, 0, s.length(), file, line, col, exact));
        }
        List<Buffer> list = new ArrayList<>(4);
        int from = 0;
        while (true) {
            int to = comma < 0 ? s.length() : comma;
            list.add(buffer(s, from, to, file, line, col, exact));
            if (comma < 0) {
                return Collections.unmodifiableList(list);
            }
            from = comma + 1;
            comma = s.indexOf(',', from);
        }
    }

    private static Buffer buffer(String s, int from, int to, String file, int line, int col, boolean exact) {
        int at = exact ? col + from : col;
        int plus = s.indexOf('+', from);
        int colon = plus < 0 ? -1 : s.indexOf(':', plus);
        if (plus < 0 || plus >= to || colon < 0 || colon >= to) {
            throw error(file, line, at, "expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got '"
                    + s.substring(from, to) + "'");
        }
        String mr = s.substring(from, plus);
        objectName(mr, file, line, at);
        long offset = size(s.substring(plus + 1, colon), file, line, exact ? col + plus + 1 : col);
        long length = size(s.substring(colon + 1, to), file, line, exact ? col + colon + 1 : col);
        return new Buffer(mr, offset, length, new Position(file, line, at));
    }

    /** {@code MR+OFFSET}. */
    static Remote remote(String s, String file, int line, int col, boolean exact) {
        int plus = s.indexOf('+');
        if (plus < 0 || s.indexOf(':') >= 0) {
            throw error(file, line, col, "expected a remote region MR+OFFSET such as B.dst+0, got '" + s + "'");
        }
        String mr = s.substring(0, plus);
        objectName(mr, file, line, col);
        long offset = size(s.substring(plus + 1), file, line, exact ? col + plus + 1 : col);
        return new Remote(mr, offset, new Position(file, line, col));
    }

    /**
     * An NTSTATUS by its name, with or without {@code STATUS_} ({@code ACCESS_VIOLATION}), or as {@code 0x} and eight
     * hexadecimal digits for one without a name here.
     */
    static long status(String s, String file, int line, int col) {
        String upper = s.toUpperCase(java.util.Locale.ROOT);
        Integer v = NtStatus.valueOf(upper);
        if (v != null) {
            return v;
        }
        if (upper.startsWith("0X") && s.length() == 10) {
            long x = digits(s, 0, s.length());
            if (x >= 0) {
                return (int) x;
            }
        }
        String[] names = NtStatus.names().stream().map(n -> n.substring("STATUS_".length())).toArray(String[]::new);
        throw error(file, line, col, "unknown status '" + s + "' (expected a name such as SUCCESS, INVALID_PARAMETER or "
                + "ACCESS_VIOLATION, or 0x and eight hexadecimal digits)" + Suggest.didYouMean(upper, names));
    }

    /** An even number of hexadecimal digits. */
    static byte[] bytes(String s, String file, int line, int col) {
        int n = s.length();
        if ((n & 1) != 0) {
            throw error(file, line, col, "expected bytes as an even number of hexadecimal digits such as 68656c6c6f, got '"
                    + s + "' (" + n + " digits)");
        }
        byte[] b = new byte[n / 2];
        for (int i = 0; i < n; i += 2) {
            int hi = Character.digit(s.charAt(i), 16);
            int lo = Character.digit(s.charAt(i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw expected("expected bytes as hexadecimal digits such as 68656c6c6f", s, file, line, col);
            }
            b[i / 2] = (byte) (hi << 4 | lo);
        }
        return b;
    }

    /** {@code zero}, {@code byte:V} (0..255) or {@code pattern:SEED}. */
    static Fill fill(String s, String file, int line, int col, boolean exact) {
        if (s.equalsIgnoreCase("zero")) {
            return Fill.ZERO;
        }
        int colon = s.indexOf(':');
        String kind = colon < 0 ? s : s.substring(0, colon);
        int at = exact ? col + colon + 1 : col;
        if (colon > 0 && kind.equalsIgnoreCase("byte")) {
            long v = integer(s.substring(colon + 1), file, line, at);
            if (v > 255) {
                throw error(file, line, at, "fill byte " + v + " is not a byte (0 to 255)");
            }
            return new Fill(Fill.Kind.BYTE, v);
        }
        if (colon > 0 && kind.equalsIgnoreCase("pattern")) {
            return new Fill(Fill.Kind.PATTERN, integer(s.substring(colon + 1), file, line, at));
        }
        throw expected("expected a fill zero, byte:V or pattern:SEED", s, file, line, col);
    }

    /** {@code KEY=VALUE,...} profile settings, in order; each key once. */
    static Map<String, String> settings(String s, String file, int line, int col, boolean exact) {
        Map<String, String> m = new LinkedHashMap<>();
        int from = 0;
        while (true) {
            int comma = s.indexOf(',', from);
            int to = comma < 0 ? s.length() : comma;
            int eq = s.indexOf('=', from);
            int at = exact ? col + from : col;
            if (eq <= from || eq >= to) {
                throw expected("expected profile settings KEY=VALUE,... such as pcie.mps=512", s.substring(from, to),
                        file, line, at);
            }
            String key = s.substring(from, eq);
            if (m.put(key, s.substring(eq + 1, to)) != null) {
                throw error(file, line, at, "profile setting '" + key + "' is given twice");
            }
            if (comma < 0) {
                return Collections.unmodifiableMap(m);
            }
            from = comma + 1;
        }
    }

    /** {@code HOST.NAME}: the host part letters, digits, '_' and '-'; the name part starts with a letter. */
    static void objectName(String s, String file, int line, int col) {
        int dot = s.indexOf('.');
        boolean ok = dot > 0 && dot + 1 < s.length() && isLetter(s.charAt(dot + 1));
        for (int i = 0; ok && i < s.length(); i++) {
            ok = i == dot || isNameChar(s.charAt(i));
        }
        if (!ok) {
            throw expected("expected an object name HOST.NAME such as A.cq", s, file, line, col);
        }
    }

    /** A host name: letters, digits, '_' and '-'. */
    static void hostName(String s, String file, int line, int col) {
        boolean ok = !s.isEmpty();
        for (int i = 0; ok && i < s.length(); i++) {
            ok = isNameChar(s.charAt(i));
        }
        if (!ok) {
            throw expected("expected a host name such as A (letters, digits, '_' and '-')", s, file, line, col);
        }
    }

    /** The host part of an object name. */
    static String hostOf(String objectName) {
        return objectName.substring(0, objectName.indexOf('.'));
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isNameChar(char c) {
        return isLetter(c) || isDigit(c) || c == '_' || c == '-';
    }

    /** Index of the name equal (ignoring case) to s[from, to), or -1. */
    static int indexOfIgnoreCase(String[] names, String s, int from, int to) {
        int len = to - from;
        for (int i = 0; i < names.length; i++) {
            if (names[i].length() == len && s.regionMatches(true, from, names[i], 0, len)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Checks a slot's text against its kind and stores the parsed value; returns the text to keep
     * (flag-like choices in lower case).
     */
    static String parseSlot(Schema.Keyword kw, int slot, String value, String file, int line, int col, boolean exact,
            long[] numbers, Object[] objects) {
        Schema.Arg arg = kw.args[slot];
        switch (arg.kind()) {
            case HOST -> hostName(value, file, line, col);
            case OBJECT -> objectName(value, file, line, col);
            case INTEGER -> numbers[slot] = integer(value, file, line, col);
            case SIZE -> numbers[slot] = size(value, file, line, col);
            case TIME -> numbers[slot] = time(value, file, line, col);
            case CALL_FLAGS -> numbers[slot] = callFlags(value, file, line, col, exact);
            case MR_FLAGS -> numbers[slot] = mrFlags(value, file, line, col, exact);
            case NOTIFY -> numbers[slot] = notifyType(value, file, line, col);
            case STATUS -> numbers[slot] = status(value, file, line, col);
            case BUFFERS -> objects[slot] = buffers(value, file, line, col, exact);
            case REMOTE -> objects[slot] = remote(value, file, line, col, exact);
            case BYTES -> objects[slot] = bytes(value, file, line, col);
            case FILL -> objects[slot] = fill(value, file, line, col, exact);
            case SETTINGS -> objects[slot] = settings(value, file, line, col, exact);
            case POLL -> {
                String v = TraceLine.lower(value);
                if (!v.equals("auto") && !v.equals("manual")) {
                    throw error(file, line, col, "expected poll=auto or poll=manual, got '" + value + "'");
                }
                return v;
            }
            case TEXT -> { }
            default -> throw new IllegalStateException("kind " + arg.kind());
        }
        return value;
    }
}
