package dev.rdmasim.traces.format;

import java.util.Arrays;

/**
 * A compiled {@code ${...}} expression: integer arithmetic ({@code + - * / %}, parentheses, unary
 * minus) on decimal or {@code 0x} constants and repeat variables, as a tree evaluated against the
 * variables' current values (indexed by repeat depth). Division truncates toward zero and {@code %}
 * takes the dividend's sign, as in Java; overflow and division by zero are errors at the {@code $}.
 * Constant subtrees are folded, and {@code %} or {@code /} by a constant power of two on a
 * non-negative value become a mask or shift: an expansion evaluates these per line.
 */
final class Expr {
    /**
     * How deep an expression may nest: parentheses and unary signs, and operators on a variable chained
     * (the tree is evaluated recursively). Far beyond any useful offset arithmetic, far below the stack.
     */
    static final int MAX_DEPTH = 64;

    private final Node root;
    /** The expression as written, {@code ${...}}, for messages. */
    private final String text;
    private final String file;
    private final int line;
    private final int column;

    private Expr(Node root, String text, String file, int line, int column) {
        this.root = root;
        this.text = text;
        this.file = file;
        this.line = line;
        this.column = column;
    }

    /** The value for these variable values (vars[d] is the variable of the repeat at depth d). */
    long eval(long[] vars) {
        try {
            return root.eval(vars);
        } catch (DivisionByZero e) {
            throw Values.error(file, line, column, "division by zero in " + text);
        } catch (ArithmeticException e) {
            throw Values.error(file, line, column, "integer overflow in " + text);
        }
    }

    /**
     * Compiles {@code src[from, to)}, the text between {@code ${} and {@code }}; {@code scope[d]} names
     * the variable of the repeat at depth d ({@code scopeSize} of them are visible). Errors point at
     * {@code column}, where the {@code $} is.
     */
    static Expr compile(String src, int from, int to, String[] scope, int scopeSize, String file, int line, int column) {
        Parser p = new Parser(src, from, to, scope, scopeSize, file, line, column);
        p.skipSpaces();
        if (p.pos == to) {
            throw Values.error(file, line, column, "empty expression ${}");
        }
        Node root = p.sum();
        p.skipSpaces();
        if (p.pos < to) {
            throw p.unexpected();
        }
        return new Expr(root, p.text, file, line, column);
    }

    /** Thrown by a node dividing by zero; the expression turns it into a {@link TraceError}. */
    private static final class DivisionByZero extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final DivisionByZero INSTANCE = new DivisionByZero();

        private DivisionByZero() {
            super("division by zero", null, false, false);
        }
    }

    private abstract static class Node {
        /** Levels of nodes below and including this one. */
        int depth = 1;

        abstract long eval(long[] vars);
    }

    private static final class Const extends Node {
        final long value;

        Const(long value) {
            this.value = value;
        }

        @Override
        long eval(long[] vars) {
            return value;
        }
    }

    private static final class Var extends Node {
        final int depth;

        Var(int depth) {
            this.depth = depth;
        }

        @Override
        long eval(long[] vars) {
            return vars[depth];
        }
    }

    private static final class Neg extends Node {
        final Node a;

        Neg(Node a) {
            this.a = a;
            this.depth = a.depth + 1;
        }

        @Override
        long eval(long[] vars) {
            return Math.negateExact(a.eval(vars));
        }
    }

    private static final class Binary extends Node {
        final char op;
        final Node a;
        final Node b;

        Binary(char op, Node a, Node b) {
            this.op = op;
            this.a = a;
            this.b = b;
            this.depth = Math.max(a.depth, b.depth) + 1;
        }

        @Override
        long eval(long[] vars) {
            return apply(op, a.eval(vars), b.eval(vars));
        }

        static long apply(char op, long x, long y) {
            switch (op) {
                case '+':
                    return Math.addExact(x, y);
                case '-':
                    return Math.subtractExact(x, y);
                case '*':
                    return Math.multiplyExact(x, y);
                case '/':
                    if (y == 0) {
                        throw DivisionByZero.INSTANCE;
                    }
                    if (x == Long.MIN_VALUE && y == -1) {
                        throw new ArithmeticException("overflow");
                    }
                    return x / y;
                default:
                    if (y == 0) {
                        throw DivisionByZero.INSTANCE;
                    }
                    return x % y;
            }
        }
    }

    /** {@code a % 2^k} or {@code a / 2^k}: a mask or shift when {@code a >= 0}. */
    private static final class PowerOfTwo extends Node {
        final boolean modulo;
        final Node a;
        final long divisor;
        final int shift;

        PowerOfTwo(boolean modulo, Node a, long divisor) {
            this.modulo = modulo;
            this.a = a;
            this.divisor = divisor;
            this.shift = Long.numberOfTrailingZeros(divisor);
            this.depth = a.depth + 1;
        }

        @Override
        long eval(long[] vars) {
            long x = a.eval(vars);
            if (x >= 0) {
                return modulo ? x & (divisor - 1) : x >>> shift;
            }
            return modulo ? x % divisor : x / divisor;
        }
    }

    /** Recursive descent over the expression, building the tree. */
    private static final class Parser {
        final String src;
        final int to;
        final String[] scope;
        final int scopeSize;
        final String file;
        final int line;
        final int column;
        final String text;
        int pos;
        /** Parentheses and unary signs open around the current position. */
        int nesting;

        Parser(String src, int from, int to, String[] scope, int scopeSize, String file, int line, int column) {
            this.src = src;
            this.pos = from;
            this.to = to;
            this.scope = scope;
            this.scopeSize = scopeSize;
            this.file = file;
            this.line = line;
            this.column = column;
            this.text = "${" + src.substring(from, to) + "}";
        }

        Node sum() {
            Node left = product();
            while (true) {
                skipSpaces();
                if (pos < to && (src.charAt(pos) == '+' || src.charAt(pos) == '-')) {
                    char op = src.charAt(pos++);
                    left = binary(op, left, product());
                } else {
                    return left;
                }
            }
        }

        Node product() {
            Node left = unary();
            while (true) {
                skipSpaces();
                char ch = pos < to ? src.charAt(pos) : 0;
                if (ch == '*' || ch == '/' || ch == '%') {
                    pos++;
                    left = binary(ch, left, unary());
                } else {
                    return left;
                }
            }
        }

        Node unary() {
            skipSpaces();
            if (pos < to && src.charAt(pos) == '-') {
                pos++;
                enter();
                Node a = unary();
                nesting--;
                if (a instanceof Const c) {
                    return new Const(fold(() -> Math.negateExact(c.value)));
                }
                return deep(new Neg(a));
            }
            if (pos < to && src.charAt(pos) == '+') {
                pos++;
                enter();
                Node a = unary();
                nesting--;
                return a;
            }
            return primary();
        }

        private void enter() {
            if (++nesting > MAX_DEPTH) {
                throw tooDeep();
            }
        }

        private Node deep(Node n) {
            if (n.depth > MAX_DEPTH) {
                throw tooDeep();
            }
            return n;
        }

        private TraceError tooDeep() {
            return error("expression nests deeper than " + MAX_DEPTH + " levels (parentheses, signs or chained"
                    + " operators) in " + text);
        }

        Node binary(char op, Node a, Node b) {
            if (a instanceof Const x && b instanceof Const y) {
                return new Const(fold(() -> Binary.apply(op, x.value, y.value)));
            }
            if ((op == '%' || op == '/') && b instanceof Const y && y.value > 0 && Long.bitCount(y.value) == 1) {
                return deep(new PowerOfTwo(op == '%', a, y.value));
            }
            return deep(new Binary(op, a, b));
        }

        long fold(java.util.function.LongSupplier f) {
            try {
                return f.getAsLong();
            } catch (DivisionByZero e) {
                throw error("division by zero in " + text);
            } catch (ArithmeticException e) {
                throw error("integer overflow in " + text);
            }
        }

        Node primary() {
            skipSpaces();
            if (pos >= to) {
                throw error("expected a number, a variable or '(' at the end of " + text);
            }
            char ch = src.charAt(pos);
            if (ch == '(') {
                pos++;
                enter();
                Node inner = sum();
                nesting--;
                skipSpaces();
                if (pos >= to || src.charAt(pos) != ')') {
                    throw error("expected ')' in " + text);
                }
                pos++;
                return inner;
            }
            if (ch >= '0' && ch <= '9') {
                int start = pos;
                while (pos < to && Character.isLetterOrDigit(src.charAt(pos))) {
                    pos++;
                }
                String number = src.substring(start, pos);
                try {
                    return new Const(Values.integer(number, file, line, column));
                } catch (TraceError e) {
                    throw error("expected a number such as 64 or 0x40 in " + text + ", got '" + number + "'");
                }
            }
            if (Character.isLetter(ch) || ch == '_') {
                int start = pos;
                while (pos < to && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
                    pos++;
                }
                String name = src.substring(start, pos);
                for (int d = scopeSize - 1; d >= 0; d--) {
                    if (scope[d].equals(name)) {
                        return new Var(d);
                    }
                }
                throw error("unknown variable '" + name + "' in " + text + (scopeSize == 0
                        ? " (no repeat encloses this line)"
                        : " (variables here: " + String.join(", ", Arrays.copyOf(scope, scopeSize)) + ")"));
            }
            throw unexpected();
        }

        TraceError unexpected() {
            return error("unexpected '" + src.charAt(pos) + "' in " + text);
        }

        TraceError error(String message) {
            return Values.error(file, line, column, message);
        }

        void skipSpaces() {
            while (pos < to && (src.charAt(pos) == ' ' || src.charAt(pos) == '\t')) {
                pos++;
            }
        }
    }
}
