package dev.rdmasim.adapter.config;

import java.util.List;
import java.util.Objects;

/**
 * One configuration parameter: a dotted key (a contract other code and user files rely on), how
 * its text is read ({@link ValueType}), its default, what values are allowed, a one-line
 * description and where the default comes from. Instances exist only as the constants of
 * {@link Parameters}; compare them by identity.
 *
 * @param <T> {@code Long} for every integral kind (counts, bytes, picoseconds, bit/s, Hz),
 *            {@code Double}, {@code Boolean} or {@code String} (choice)
 */
public final class Parameter<T extends Comparable<T>> {
    private final int index;
    private final String key;
    private final ValueType<T> type;
    private final T defaultValue;
    private final T min;
    private final T max;
    private final boolean powerOfTwo;
    private final long multipleOf;
    private final List<T> choices;
    private final String description;
    private final String source;

    private Parameter(Builder<T> b, int index) {
        this.index = index;
        this.key = b.key;
        this.type = b.type;
        this.min = b.min;
        this.max = b.max;
        this.powerOfTwo = b.powerOfTwo;
        this.multipleOf = b.multipleOf;
        this.choices = List.copyOf(b.choices);
        this.description = Objects.requireNonNull(b.description, () -> b.key + ": no description");
        this.source = Objects.requireNonNull(b.source, () -> b.key + ": no source");
        this.defaultValue = b.type.parse(b.defaultText);
        String problem = check(defaultValue);
        if (problem != null) {
            throw new IllegalStateException(key + ": default " + b.defaultText + " " + problem);
        }
    }

    /** Position in {@link Parameters#all()} (registration order). */
    int index() {
        return index;
    }

    public String key() {
        return key;
    }

    public ValueType<T> type() {
        return type;
    }

    public T defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    /** Where the default comes from: a publication, a spec, or "model choice" with the reason. */
    public String source() {
        return source;
    }

    /** The unit values are stored in ({@code ps}, {@code B}, {@code bit/s}, {@code Hz}) or empty. */
    public String unit() {
        return type.baseUnit();
    }

    /** Canonical text of a value of this parameter. */
    public String format(T value) {
        return type.format(value);
    }

    /** Parses and range-checks; the exception names the key and the offending text. */
    public T parse(String text) {
        T value;
        try {
            value = type.parse(text);
        } catch (ProfileException e) {
            throw new ProfileException(key + ": " + e.getMessage(), e);
        }
        checkOrThrow(value, text);
        return value;
    }

    void checkOrThrow(T value, String text) {
        String problem = check(value);
        if (problem != null) {
            throw new ProfileException(key + " = " + text + ": " + problem);
        }
    }

    /** Null when {@code value} is allowed, otherwise what is wrong with it. */
    String check(T value) {
        if (!choices.isEmpty() && !choices.contains(value)) {
            return "must be one of " + allowed();
        }
        boolean outside = (min != null && value.compareTo(min) < 0) || (max != null && value.compareTo(max) > 0);
        boolean notPow2 = powerOfTwo && value instanceof Long l && Long.bitCount(l) != 1;
        boolean notMultiple = multipleOf > 1 && value instanceof Long l && l % multipleOf != 0;
        if (outside || notPow2 || notMultiple) {
            return "must be " + allowed();
        }
        return null;
    }

    /** The allowed values in words, e.g. {@code 128B..4KiB, power of two}. */
    public String allowed() {
        if (!choices.isEmpty()) {
            StringBuilder sb = new StringBuilder();
            for (T c : choices) {
                sb.append(sb.length() == 0 ? "" : ", ").append(type.format(c));
            }
            return sb.toString();
        }
        if (type == ValueType.BOOLEAN) {
            return "true, false";
        }
        StringBuilder sb = new StringBuilder();
        if (min != null && max != null) {
            sb.append(type.format(min)).append("..").append(type.format(max));
        } else if (min != null) {
            sb.append(">= ").append(type.format(min));
        } else if (max != null) {
            sb.append("<= ").append(type.format(max));
        }
        if (powerOfTwo) {
            sb.append(sb.length() == 0 ? "" : ", ").append("power of two");
        }
        if (multipleOf > 1) {
            @SuppressWarnings("unchecked")
            String m = type.format((T) Long.valueOf(multipleOf));
            sb.append(sb.length() == 0 ? "" : ", ").append("multiple of ").append(m);
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return key;
    }

    /** Collects a definition; {@link Parameters} turns it into a registered {@link Parameter}. */
    static final class Builder<T extends Comparable<T>> {
        private final String key;
        private final ValueType<T> type;
        private final String defaultText;
        private T min;
        private T max;
        private boolean powerOfTwo;
        private long multipleOf;
        private List<T> choices = List.of();
        private String description;
        private String source;

        Builder(ValueType<T> type, String key, String defaultText) {
            this.type = type;
            this.key = key;
            this.defaultText = defaultText;
        }

        Builder<T> range(String lo, String hi) {
            this.min = type.parse(lo);
            this.max = type.parse(hi);
            return this;
        }

        Builder<T> pow2() {
            if (!type.integral()) {
                throw new IllegalStateException(key + ": power of two needs an integral type");
            }
            this.powerOfTwo = true;
            return this;
        }

        Builder<T> multipleOf(long m) {
            if (!type.integral()) {
                throw new IllegalStateException(key + ": multiple-of needs an integral type");
            }
            this.multipleOf = m;
            return this;
        }

        /** The allowed values, written as the type parses them. */
        Builder<T> oneOf(String... texts) {
            List<T> parsed = new java.util.ArrayList<>();
            for (String t : texts) {
                parsed.add(type.parse(t));
            }
            this.choices = parsed;
            return this;
        }

        Builder<T> doc(String description) {
            this.description = description;
            return this;
        }

        Builder<T> src(String source) {
            this.source = source;
            return this;
        }

        Parameter<T> build(int index) {
            return new Parameter<>(this, index);
        }
    }
}
