package dev.rdmasim.sweep;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values of one swept parameter as a sweep writes them: a comma-separated list whose items are values or
 * integer ranges. {@code FROM..TO*FACTOR} is geometric ({@code 1..1024*2}: 1, 2, 4, ..., 1024), {@code FROM..TO+STEP}
 * arithmetic ({@code 0..256+64}: 0, 64, 128, 192, 256), {@code FROM..TO} steps by one; a range stops at the last
 * value not above {@code TO}. Items mix freely ({@code 0,64..256+64}). Values keep their text (units included:
 * {@code 4KiB}); the parameter parses them.
 */
public final class ValueList {
    /** Most values one range may give: a guard against a typo that would make a sweep of millions of points. */
    public static final int MAX_RANGE_VALUES = 10_000;

    private static final Pattern RANGE = Pattern.compile("(-?\\d+)\\.\\.(-?\\d+)(?:([*+])(-?\\d+))?");

    private ValueList() {
    }

    /** The values of {@code text}, in order; a malformed item, an empty range or a repeated value is an error. */
    public static List<String> parse(String text) {
        if (text.isBlank()) {
            throw new IllegalArgumentException("no values");
        }
        List<String> items = new ArrayList<>();
        for (String raw : text.split(",", -1)) {
            items.add(raw.strip());
        }
        return expand(items, text);
    }

    /** As {@link #parse}, for items given one by one (a YAML list): each item is a value or a range. */
    public static List<String> parse(List<String> items) {
        if (items.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        List<String> stripped = new ArrayList<>();
        for (String i : items) {
            stripped.add(i.strip());
        }
        return expand(stripped, String.join(",", stripped));
    }

    private static List<String> expand(List<String> items, String text) {
        Set<String> out = new LinkedHashSet<>();
        for (String item : items) {
            if (item.isEmpty()) {
                throw new IllegalArgumentException("empty value in '" + text + "'");
            }
            for (String v : item.contains("..") ? range(item) : List.of(item)) {
                if (!out.add(v)) {
                    throw new IllegalArgumentException("value " + v + " is given twice in '" + text + "'");
                }
            }
        }
        return List.copyOf(out);
    }

    private static List<String> range(String item) {
        Matcher m = RANGE.matcher(item);
        if (!m.matches()) {
            throw new IllegalArgumentException("bad range '" + item + "': expected FROM..TO, FROM..TO+STEP or "
                    + "FROM..TO*FACTOR with whole numbers, e.g. 1..1024*2 or 0..256+64");
        }
        long from = number(m.group(1), item);
        long to = number(m.group(2), item);
        boolean geometric = "*".equals(m.group(3));
        long step = m.group(4) == null ? 1 : number(m.group(4), item);
        if (from > to) {
            throw new IllegalArgumentException("range '" + item + "' is empty: " + from + " is above " + to);
        }
        if (geometric && step < 2) {
            throw new IllegalArgumentException("range '" + item + "': the factor must be at least 2, got " + step);
        }
        if (geometric && from < 1) {
            throw new IllegalArgumentException("range '" + item + "': a geometric range starts at 1 or more, got "
                    + from);
        }
        if (!geometric && step < 1) {
            throw new IllegalArgumentException("range '" + item + "': the step must be at least 1, got " + step);
        }
        List<String> out = new ArrayList<>();
        for (long v = from; v <= to; ) {
            if (out.size() == MAX_RANGE_VALUES) {
                throw new IllegalArgumentException("range '" + item + "' gives more than " + MAX_RANGE_VALUES
                        + " values");
            }
            out.add(Long.toString(v));
            long next = geometric ? v * step : v + step;
            // Overflow ends the range: the next value would be above any TO.
            if (geometric ? next / step != v : next < v) {
                break;
            }
            v = next;
        }
        return out;
    }

    private static long number(String digits, String item) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("range '" + item + "': " + digits + " is too large");
        }
    }
}
