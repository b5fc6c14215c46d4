package dev.rdmasim.kernel.stats;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * All statistics groups of a simulation, in registration order, and their dumps. Dumps are deterministic: the same
 * statistics with the same values always give the same bytes, whatever the platform.
 */
public final class StatsRegistry {

    /** The percentiles reported for each histogram, in output order. */
    private enum Percentile {
        P50("p50", 50.0), P90("p90", 90.0), P99("p99", 99.0), P999("p999", 99.9);

        final String key;
        final double percent;

        Percentile(String key, double percent) {
            this.key = key;
            this.percent = percent;
        }
    }

    private final List<StatsGroup> groups = new ArrayList<>();
    private final Set<String> paths = new HashSet<>();
    private final JsonFactory jsonFactory = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .build();

    /**
     * Adds a group and returns it.
     *
     * @throws IllegalArgumentException if a group with the same path is already registered
     */
    public StatsGroup register(StatsGroup group) {
        Objects.requireNonNull(group, "group");
        if (!paths.add(group.path())) {
            throw new IllegalArgumentException("duplicate statistics group " + group.path());
        }
        groups.add(group);
        return group;
    }

    /** The registered groups in registration order; an unmodifiable live view. */
    public List<StatsGroup> groups() {
        return Collections.unmodifiableList(groups);
    }

    /** Resets every statistic of every group. */
    public void reset() {
        for (StatsGroup group : groups) {
            group.reset();
        }
    }

    /**
     * Writes all statistics as one pretty-printed JSON object keyed by full statistic name, followed by a newline,
     * refreshing each group (see {@link StatsGroup#setRefresh}) just before its statistics are written.
     * Flushes but does not close {@code out}.
     */
    public void writeJson(Writer out) throws IOException {
        // A fixed "\n" indenter: the default one uses the platform line separator, which would break byte equality.
        DefaultPrettyPrinter pretty = new DefaultPrettyPrinter(
                Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
                .withObjectIndenter(new DefaultIndenter("  ", "\n"));
        try (JsonGenerator json = jsonFactory.createGenerator(out)) {
            json.setPrettyPrinter(pretty);
            json.writeStartObject();
            for (StatsGroup group : groups) {
                group.refresh();
                for (Stat stat : group.stats()) {
                    json.writeObjectFieldStart(stat.fullName());
                    writeJsonFields(json, stat);
                    json.writeEndObject();
                }
            }
            json.writeEndObject();
            json.writeRaw('\n');
        }
        out.flush();
    }

    private static void writeJsonFields(JsonGenerator json, Stat stat) throws IOException {
        json.writeStringField("type", typeName(stat));
        json.writeStringField("unit", stat.unit());
        json.writeStringField("description", stat.description());
        if (stat instanceof Counter c) {
            json.writeNumberField("value", c.value());
        } else if (stat instanceof Formula f) {
            writeDouble(json, "value", f.value());
        } else if (stat instanceof TimeAverage t) {
            writeDouble(json, "average", t.average());
            json.writeNumberField("max", t.max());
        } else if (stat instanceof Histogram h) {
            long count = h.count();
            json.writeNumberField("count", count);
            if (count == 0) {
                json.writeNullField("min");
                json.writeNullField("max");
                json.writeNullField("mean");
                for (Percentile p : Percentile.values()) {
                    json.writeNullField(p.key);
                }
            } else {
                json.writeNumberField("min", h.min());
                json.writeNumberField("max", h.max());
                json.writeNumberField("mean", h.mean());
                for (Percentile p : Percentile.values()) {
                    json.writeNumberField(p.key, h.percentile(p.percent));
                }
            }
        }
    }

    private static void writeDouble(JsonGenerator json, String field, double value) throws IOException {
        if (Double.isFinite(value)) {
            json.writeNumberField(field, value);
        } else {
            // JSON has no NaN or infinity.
            json.writeNullField(field);
        }
    }

    private static String typeName(Stat stat) {
        if (stat instanceof Counter) {
            return "counter";
        } else if (stat instanceof Histogram) {
            return "histogram";
        } else if (stat instanceof Formula) {
            return "formula";
        }
        return "timeAverage";
    }

    /**
     * All statistics as an aligned table with columns name, value, unit and description, one line per value.
     * Histograms and time averages take several lines, named {@code fullName::part} as in gem5.
     */
    public String toText() {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"name", "value", "unit", "description"});
        for (StatsGroup group : groups) {
            group.refresh();
            for (Stat stat : group.stats()) {
                addTextRows(rows, stat);
            }
        }
        int nameWidth = 0;
        int valueWidth = 0;
        int unitWidth = 0;
        for (String[] row : rows) {
            nameWidth = Math.max(nameWidth, row[0].length());
            valueWidth = Math.max(valueWidth, row[1].length());
            unitWidth = Math.max(unitWidth, row[2].length());
        }
        StringBuilder text = new StringBuilder();
        for (String[] row : rows) {
            int lineStart = text.length();
            pad(text.append(row[0]), nameWidth - row[0].length() + 2);
            pad(text, valueWidth - row[1].length()).append(row[1]);
            pad(text.append("  ").append(row[2]), unitWidth - row[2].length() + 2).append(row[3]);
            int end = text.length();
            while (end > lineStart && text.charAt(end - 1) == ' ') {
                end--;
            }
            text.setLength(end);
            text.append('\n');
        }
        return text.toString();
    }

    private static void addTextRows(List<String[]> rows, Stat stat) {
        String name = stat.fullName();
        String unit = stat.unit();
        String description = stat.description();
        if (stat instanceof Counter c) {
            rows.add(new String[] {name, Long.toString(c.value()), unit, description});
        } else if (stat instanceof Formula f) {
            rows.add(new String[] {name, formatDouble(f.value()), unit, description});
        } else if (stat instanceof TimeAverage t) {
            rows.add(new String[] {name, formatDouble(t.average()), unit, description});
            rows.add(new String[] {name + "::max", Long.toString(t.max()), unit, description});
        } else if (stat instanceof Histogram h) {
            boolean empty = h.count() == 0;
            rows.add(new String[] {name + "::count", Long.toString(h.count()), "samples", description});
            rows.add(new String[] {name + "::min", empty ? "-" : Long.toString(h.min()), unit, description});
            rows.add(new String[] {name + "::mean", empty ? "-" : formatDouble(h.mean()), unit, description});
            for (Percentile p : Percentile.values()) {
                String value = empty ? "-" : Long.toString(h.percentile(p.percent));
                rows.add(new String[] {name + "::" + p.key, value, unit, description});
            }
            rows.add(new String[] {name + "::max", empty ? "-" : Long.toString(h.max()), unit, description});
        }
    }

    /** Six significant digits without trailing zeros or exponent, e.g. {@code 3}, {@code 0.25}, {@code 1234.57}. */
    private static String formatDouble(double value) {
        if (Double.isNaN(value)) {
            return "nan";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        if (value == 0.0) {
            return "0";
        }
        return new BigDecimal(String.format(Locale.US, "%.6g", value)).stripTrailingZeros().toPlainString();
    }

    private static StringBuilder pad(StringBuilder text, int spaces) {
        for (int i = 0; i < spaces; i++) {
            text.append(' ');
        }
        return text;
    }
}
