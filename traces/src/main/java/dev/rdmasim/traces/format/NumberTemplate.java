package dev.rdmasim.traces.format;

/**
 * A number-valued token (integer, size or time) compiled for repeated evaluation: a constant when
 * literal; {@code ${expr}} with an optional literal unit is evaluated straight to a number (no text is
 * built); anything else is evaluated to text and parsed. Errors read as if the text had been written.
 */
final class NumberTemplate {
    private final Schema.Kind kind;
    private final long constant;
    private final Expr expr;
    private final String unit;
    private final long factor;
    private final Template template;
    private final String file;
    private final int line;
    private final int column;

    private NumberTemplate(Schema.Kind kind, long constant, Expr expr, String unit, long factor, Template template,
            String file, int line, int column) {
        this.kind = kind;
        this.constant = constant;
        this.expr = expr;
        this.unit = unit;
        this.factor = factor;
        this.template = template;
        this.file = file;
        this.line = line;
        this.column = column;
    }

    static NumberTemplate compile(Template t, Schema.Kind kind, String file, int line, int column) {
        if (t.isLiteral()) {
            return new NumberTemplate(kind, parse(kind, t.literal, file, line, column), null, null, 0, null, file, line, column);
        }
        Expr e = t.leadingOnlyExpr();
        if (e != null) {
            long f = Values.unitFactor(kind, t.suffix());
            if (f > 0) {
                return new NumberTemplate(kind, 0, e, t.suffix(), f, null, file, line, column);
            }
        }
        return new NumberTemplate(kind, 0, null, null, 0, t, file, line, column);
    }

    boolean isConstant() {
        return expr == null && template == null;
    }

    long eval(long[] vars, StringBuilder scratch) {
        if (expr != null) {
            long v = expr.eval(vars);
            if (v < 0) {
                parse(kind, v + unit, file, line, column); // throws the message the text would give
            }
            if (v > Long.MAX_VALUE / factor) {
                throw Values.error(file, line, column, Values.example(kind) + ", got '" + v + unit + "' (too large)");
            }
            return v * factor;
        }
        if (template != null) {
            return parse(kind, template.eval(vars, scratch), file, line, column);
        }
        return constant;
    }

    static long parse(Schema.Kind kind, String text, String file, int line, int column) {
        return switch (kind) {
            case INTEGER -> Values.integer(text, file, line, column);
            case SIZE -> Values.size(text, file, line, column);
            case TIME -> Values.time(text, file, line, column);
            default -> throw new IllegalArgumentException("not a number kind: " + kind);
        };
    }
}
