package dev.rdmasim.adapter.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An immutable, validated value for every parameter of {@link Parameters}. Every instance satisfies
 * each parameter's range and all {@link Parameters#RULES}; changes go through {@link #with} and
 * {@link #withOverrides}, which return a new validated profile. Model blocks read their values once
 * in their constructors through the typed getters.
 */
public final class Profile {
    private final String name;
    private final String description;
    /** Indexed by {@link Parameter#index()}. */
    private final Object[] values;

    private Profile(String name, String description, Object[] values) {
        this.name = Objects.requireNonNull(name, "name");
        this.description = Objects.requireNonNull(description, "description");
        this.values = values;
        for (Rule rule : Parameters.RULES) {
            String violation = rule.check().apply(this);
            if (violation != null) {
                throw new ProfileException(violation);
            }
        }
    }

    /** The registry defaults, named {@code default}. */
    public static Profile defaults() {
        List<Parameter<?>> all = Parameters.all();
        Object[] v = new Object[all.size()];
        for (Parameter<?> p : all) {
            v[p.index()] = p.defaultValue();
        }
        return new Profile("default", "registry defaults", v);
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    /** The same values under another name and description. */
    public Profile named(String newName, String newDescription) {
        return new Profile(newName, newDescription, values);
    }

    @SuppressWarnings("unchecked")
    public <T extends Comparable<T>> T get(Parameter<T> p) {
        return (T) values[p.index()];
    }

    public long getLong(Parameter<Long> p) {
        return get(p);
    }

    /** An integral value as {@code int}; a value that does not fit is an error naming the key. */
    public int getInt(Parameter<Long> p) {
        long v = get(p);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new ProfileException(p.key() + " = " + p.format(v) + " does not fit an int");
        }
        return (int) v;
    }

    public boolean getBoolean(Parameter<Boolean> p) {
        return get(p);
    }

    public double getDouble(Parameter<Double> p) {
        return get(p);
    }

    public String getString(Parameter<String> p) {
        return get(p);
    }

    /** The canonical text of a value by key, for tools; an unknown key is an error with suggestions. */
    public String get(String key) {
        return formatted(lookup(key));
    }

    private <T extends Comparable<T>> String formatted(Parameter<T> p) {
        return p.format(get(p));
    }

    /** A new profile with one value changed (text in the parameter's own syntax, e.g. {@code 4KiB}). */
    public Profile with(String key, String value) {
        return withOverrides(Map.of(key, value));
    }

    /** A new profile with one value changed, typed. */
    public <T extends Comparable<T>> Profile with(Parameter<T> p, T value) {
        Objects.requireNonNull(value, p.key());
        p.checkOrThrow(value, p.format(value));
        Object[] v = values.clone();
        v[p.index()] = value;
        return new Profile(name, description, v);
    }

    /**
     * A new profile with all these values changed at once; cross-parameter rules are checked after
     * all are applied, so related values can change together. Keys apply in the map's order.
     */
    public Profile withOverrides(Map<String, String> overrides) {
        Object[] v = values.clone();
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            Parameter<?> p = lookup(e.getKey());
            v[p.index()] = p.parse(Objects.requireNonNull(e.getValue(), e.getKey()));
        }
        return new Profile(name, description, v);
    }

    /** Like {@link #withOverrides(Map)} for {@code key=value} strings, e.g. from a command line. */
    public Profile withOverrides(List<String> assignments) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String a : assignments) {
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new ProfileException("'" + a + "' is not key=value (e.g. pcie.mps=512)");
            }
            String key = a.substring(0, eq).trim();
            if (m.containsKey(key)) {
                throw new ProfileException(key + " is set twice");
            }
            m.put(key, a.substring(eq + 1).trim());
        }
        return withOverrides(m);
    }

    /** Every value by key as canonical text, in registry order. */
    public Map<String, String> asMap() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Parameter<?> p : Parameters.all()) {
            m.put(p.key(), formatted(p));
        }
        return Collections.unmodifiableMap(m);
    }

    /** The values that differ from {@code other}, as canonical text, in registry order. */
    public Map<String, String> differencesFrom(Profile other) {
        Map<String, String> m = new LinkedHashMap<>();
        for (Parameter<?> p : Parameters.all()) {
            if (!values[p.index()].equals(other.values[p.index()])) {
                m.put(p.key(), formatted(p));
            }
        }
        return Collections.unmodifiableMap(m);
    }

    /**
     * A stable, human-readable listing: a header line, then one {@code key = value} line per
     * parameter in registry order, with the registry default noted where the value differs.
     */
    public String describe() {
        int width = 0;
        for (Parameter<?> p : Parameters.all()) {
            width = Math.max(width, p.key().length());
        }
        StringBuilder sb = new StringBuilder();
        sb.append("profile ").append(name).append(": ").append(description).append('\n');
        for (Parameter<?> p : Parameters.all()) {
            sb.append("  ").append(p.key());
            sb.append(" ".repeat(width - p.key().length())).append(" = ").append(formatted(p));
            if (!values[p.index()].equals(p.defaultValue())) {
                sb.append("  (default ").append(defaultText(p)).append(')');
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static <T extends Comparable<T>> String defaultText(Parameter<T> p) {
        return p.format(p.defaultValue());
    }

    static Parameter<?> lookup(String key) {
        Parameter<?> p = Parameters.byKey(key);
        if (p == null) {
            throw new ProfileException("unknown parameter '" + key + "'; closest: "
                    + String.join(", ", Parameters.closest(key)));
        }
        return p;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Profile other && name.equals(other.name) && description.equals(other.description)
                && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, description, Arrays.hashCode(values));
    }

    @Override
    public String toString() {
        return "Profile[" + name + "]";
    }
}
