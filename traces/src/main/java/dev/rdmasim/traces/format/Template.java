package dev.rdmasim.traces.format;

/**
 * A token as written, with its {@code ${...}} expressions compiled: literal parts around them. A
 * token without expressions is its literal text, evaluated once.
 */
final class Template {
    /** The whole token when it has no expression, else null. */
    final String literal;
    private final String[] parts;
    private final Expr[] exprs;

    private Template(String literal, String[] parts, Expr[] exprs) {
        this.literal = literal;
        this.parts = parts;
        this.exprs = exprs;
    }

    static Template literal(String text) {
        return new Template(text, null, null);
    }

    /** Compiles {@code src[from, to)}, which starts at column {@code col}; expressions were checked closed by the lexer. */
    static Template compile(String src, int from, int to, int col, String[] scope, int scopeSize, String file, int line) {
        int open = src.indexOf("${", from);
        if (open < 0 || open >= to) {
            return literal(src.substring(from, to));
        }
        java.util.List<String> parts = new java.util.ArrayList<>();
        java.util.List<Expr> exprs = new java.util.ArrayList<>();
        int at = from;
        while (open >= 0 && open < to) {
            int close = src.indexOf('}', open + 2);
            parts.add(src.substring(at, open));
            exprs.add(Expr.compile(src, open + 2, close, scope, scopeSize, file, line, col + open - from));
            at = close + 1;
            open = src.indexOf("${", at);
        }
        parts.add(src.substring(at, to));
        return new Template(null, parts.toArray(new String[0]), exprs.toArray(new Expr[0]));
    }

    /** The only expression when the token is {@code ${...}} followed by literal text, else null. */
    Expr leadingOnlyExpr() {
        return exprs != null && exprs.length == 1 && parts[0].isEmpty() ? exprs[0] : null;
    }

    /** The literal text after the last expression. */
    String suffix() {
        return parts == null ? literal : parts[parts.length - 1];
    }

    boolean isLiteral() {
        return literal != null;
    }

    /** The token's text for these variable values; {@code sb} is scratch space. */
    String eval(long[] vars, StringBuilder sb) {
        if (literal != null) {
            return literal;
        }
        sb.setLength(0);
        for (int i = 0; i < exprs.length; i++) {
            sb.append(parts[i]).append(exprs[i].eval(vars));
        }
        return sb.append(parts[exprs.length]).toString();
    }
}
