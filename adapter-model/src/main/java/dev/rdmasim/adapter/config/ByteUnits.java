package dev.rdmasim.adapter.config;

/**
 * The one rule for units of byte sizes, in profiles, {@code --set}, traces and sweeps: binary multiples only,
 * {@code B}, {@code KiB} (1024 B), {@code MiB}, {@code GiB}, {@code TiB}, {@code PiB}, {@code EiB}, in any case.
 * {@code KB}, {@code MB}, ... are refused, with a message: they are read as 1000 B by some and 1024 B by others, and
 * every size in an adapter (buffers, MTUs, TLP payloads) is a binary multiple.
 */
public final class ByteUnits {
    /** The units as printed, smallest first. */
    private static final String[] NAMES = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    /** The decimal-looking prefixes refused with a message of their own, in the order of {@link #NAMES}' prefixes. */
    private static final String PREFIXES = "KMGTPE";

    private ByteUnits() {
    }

    /**
     * The factor of the unit {@code s[from, to)} (case-insensitive), or 0 when it is not one. Allocates nothing: the
     * trace reader calls it for every size it reads.
     */
    public static long factor(CharSequence s, int from, int to) {
        for (int i = 0; i < NAMES.length; i++) {
            String name = NAMES[i];
            if (to - from == name.length() && regionMatches(s, from, name)) {
                return 1L << (10 * i);
            }
        }
        return 0;
    }

    /** {@link #factor(CharSequence, int, int)} of a whole string. */
    public static long factor(String unit) {
        return factor(unit, 0, unit.length());
    }

    /**
     * Why {@code text} (a number, then {@code unit}) is not a size, or null when the unit is simply unknown: for
     * {@code 64KB}, {@code "sizes take binary units: 64KiB is 65536 B; KB, MB, GB, ... are not used"}.
     */
    public static String decimalUnitReason(String number, String unit) {
        if (unit.length() != 2 || Character.toLowerCase(unit.charAt(1)) != 'b') {
            return null;
        }
        int p = PREFIXES.indexOf(Character.toUpperCase(unit.charAt(0)));
        if (p < 0) {
            return null;
        }
        String binary = number + PREFIXES.charAt(p) + "iB";
        String bytes;
        try {
            bytes = " is " + Math.multiplyExact(Long.parseLong(number), 1L << (10 * (p + 1))) + " B";
        } catch (NumberFormatException | ArithmeticException e) {
            bytes = " is " + number + " x " + (1L << (10 * (p + 1))) + " B";
        }
        return "sizes take binary units: " + binary + bytes + "; KB, MB, GB, ... are not used";
    }

    /** The units in words, for messages and docs. */
    public static String names() {
        return String.join(", ", NAMES);
    }

    private static boolean regionMatches(CharSequence s, int from, String name) {
        for (int k = 0; k < name.length(); k++) {
            char a = s.charAt(from + k);
            char b = name.charAt(k);
            if (a != b && Character.toLowerCase(a) != Character.toLowerCase(b)) {
                return false;
            }
        }
        return true;
    }
}
