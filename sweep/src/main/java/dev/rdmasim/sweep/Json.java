package dev.rdmasim.sweep;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.NumberOutput;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * Deterministic text for the sweep's files: numbers in one canonical form and JSON with fixed layout, so equal
 * results give equal bytes on any machine and JDK.
 */
final class Json {
    private static final JsonFactory FACTORY = new JsonFactory();
    /** Largest magnitude below which every integer is a double exactly: whole values print as integers. */
    private static final double EXACT = 0x1p53;

    private Json() {
    }

    /**
     * A number as text: whole values as integers ({@code 747500000}), others as the shortest decimal that reads
     * back to the same double (Schubfach, JDK-independent), e.g. {@code 13.698996655518394}.
     */
    static String number(double v) {
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException("not a finite number: " + v);
        }
        if (v == Math.rint(v) && Math.abs(v) < EXACT) {
            return Long.toString((long) v);
        }
        return NumberOutput.toString(v, true);
    }

    /**
     * A tree of maps (written in their iteration order), lists, strings, booleans and numbers as pretty-printed
     * JSON with {@code \n} line ends and a final newline.
     */
    static String write(Object tree) {
        DefaultPrettyPrinter pretty = new DefaultPrettyPrinter(
                Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
                .withObjectIndenter(new DefaultIndenter("  ", "\n"));
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.setPrettyPrinter(pretty);
            value(g, tree);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out + "\n";
    }

    private static void value(JsonGenerator g, Object v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (v instanceof Map<?, ?> m) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                g.writeFieldName(e.getKey().toString());
                value(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof List<?> l) {
            g.writeStartArray();
            for (Object o : l) {
                value(g, o);
            }
            g.writeEndArray();
        } else if (v instanceof String s) {
            g.writeString(s);
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v instanceof Integer || v instanceof Long) {
            g.writeNumber(((Number) v).longValue());
        } else if (v instanceof Double d) {
            g.writeNumber(number(d));
        } else {
            throw new IllegalArgumentException("no JSON form for " + v.getClass().getName());
        }
    }
}
