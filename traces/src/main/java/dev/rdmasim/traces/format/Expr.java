package dev.rdmasim.traces.format;

/**
 * A compiled {@code ${...}} expression: integer arithmetic ({@code + - * / %}, parentheses, unary
 * minus) on decimal or {@code 0x} constants and repeat variables, as postfix code evaluated against
 * the variables' current values (indexed by repeat depth). Division truncates toward zero and
 * {@code %} takes the dividend's sign, as in Java; overflow is an error.
 */
final class Expr {
    private static final int CONST = 0;
    private static final int VAR = 1;
    private static final int ADD = 2;
    private static final int SUB = 3;
    private static final int MUL = 4;
    private static final int DIV = 5;
    private static final int MOD = 6;
    private static final int NEG = 7;

    /** Opcodes, each CONST or VAR followed by its operand. */
    private final int[] code;
    private final long[] constants;
    /** Evaluation stack, reused: an Expr belongs to one reader's compiled repeat body. */
    private final long[] stack;
    /** The expression as written, {@code ${...}}, for messages. */
    private final String text;
    private final String file;
    private final int line;
    private final int column;

    private Expr(int[] code, long[] constants, int stackDepth, String text, String file, int line, int column) {
        this.code = code;
        this.constants = constants;
        this.stack = new long[stackDepth];
        this.text = text;
        this.file = file;
        this.line = line;
        this.column = column;
    }

    /** The value for these variable values (vars[d] is the variable of the repeat at depth d). */
    long eval(long[] vars) {
        long[] stack = this.stack;
        int sp = 0;
        int[] c = code;
        try {
            for (int pc = 0; pc < c.length; pc++) {
                switch (c[pc]) {
                    case CONST -> stack[sp++] = constants[c[++pc]];
                    case VAR -> stack[sp++] = vars[c[++pc]];
                    case NEG -> stack[sp - 1] = Math.negateExact(stack[sp - 1]);
                    default -> {
                        long b = stack[--sp];
                        long a = stack[sp - 1];
                        stack[sp - 1] = apply(c[pc], a, b);
                    }
                }
            }
        } catch (ArithmeticException e) {
            throw error("integer overflow in " + text);
        }
        return stack[0];
    }

    private long apply(int op, long a, long b) {
        switch (op) {
            case ADD:
                return Math.addExact(a, b);
            case SUB:
                return Math.subtractExact(a, b);
            case MUL:
                return Math.multiplyExact(a, b);
            default:
                if (b == 0) {
                    throw error("division by zero in " + text);
                }
                if (op == DIV) {
                    if (a == Long.MIN_VALUE && b == -1) {
                        throw new ArithmeticException();
                    }
                    return a / b;
                }
                return a % b;
        }
    }

    private TraceError error(String message) {
        return Values.error(file, line, column, message);
    }

    /**
     * Compiles {@code src[from, to)}, the text between {@code ${} and {@code }}; {@code scope[d]} names
     * the variable of the repeat at depth d ({@code scopeSize} of them are visible). Errors point at
     * {@code column}, where the {@code $} is.
     */
    static Expr compile(String src, int from, int to, String[] scope, int scopeSize, String file, int line, int column) {
        Compiler c = new Compiler(src, from, to, scope, scopeSize, file, line, column);
        c.skipSpaces();
        if (c.pos == to) {
            throw Values.error(file, line, column, "empty expression ${}");
        }
        c.sum();
        c.skipSpaces();
        if (c.pos < to) {
            throw c.unexpected();
        }
        return new Expr(java.util.Arrays.copyOf(c.code, c.codeLength), java.util.Arrays.copyOf(c.constants, c.constantCount),
                Math.max(1, c.maxDepth), c.text, file, line, column);
    }

    /** Recursive descent over the expression; emits postfix code. */
    private static final class Compiler {
        final String src;
        final int to;
        final String[] scope;
        final int scopeSize;
        final String file;
        final int line;
        final int column;
        final String text;
        int pos;
        int[] code = new int[16];
        int codeLength;
        long[] constants = new long[4];
        int constantCount;
        int depth;
        int maxDepth;

        Compiler(String src, int from, int to, String[] scope, int scopeSize, String file, int line, int column) {
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

        void sum() {
            product();
            while (true) {
                skipSpaces();
                if (pos < to && (src.charAt(pos) == '+' || src.charAt(pos) == '-')) {
                    int op = src.charAt(pos++) == '+' ? ADD : SUB;
                    product();
                    emit(op, -1);
                } else {
                    return;
                }
            }
        }

        void product() {
            unary();
            while (true) {
                skipSpaces();
                char ch = pos < to ? src.charAt(pos) : 0;
                if (ch == '*' || ch == '/' || ch == '%') {
                    pos++;
                    unary();
                    emit(ch == '*' ? MUL : ch == '/' ? DIV : MOD, -1);
                } else {
                    return;
                }
            }
        }

        void unary() {
            skipSpaces();
            if (pos < to && src.charAt(pos) == '-') {
                pos++;
                unary();
                emit(NEG, 0);
            } else if (pos < to && src.charAt(pos) == '+') {
                pos++;
                unary();
            } else {
                primary();
            }
        }

        void primary() {
            skipSpaces();
            if (pos >= to) {
                throw error("expected a number, a variable or '(' at the end of " + text);
            }
            char ch = src.charAt(pos);
            if (ch == '(') {
                pos++;
                sum();
                skipSpaces();
                if (pos >= to || src.charAt(pos) != ')') {
                    throw error("expected ')' in " + text);
                }
                pos++;
            } else if (ch >= '0' && ch <= '9') {
                int start = pos;
                while (pos < to && Character.isLetterOrDigit(src.charAt(pos))) {
                    pos++;
                }
                String number = src.substring(start, pos);
                long v;
                try {
                    v = Values.integer(number, file, line, column);
                } catch (TraceError e) {
                    throw error("expected a number such as 64 or 0x40 in " + text + ", got '" + number + "'");
                }
                if (constantCount == constants.length) {
                    constants = java.util.Arrays.copyOf(constants, constantCount * 2);
                }
                constants[constantCount] = v;
                emit(CONST, constantCount++);
            } else if (Character.isLetter(ch) || ch == '_') {
                int start = pos;
                while (pos < to && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
                    pos++;
                }
                String name = src.substring(start, pos);
                int d = scopeSize - 1;
                while (d >= 0 && !scope[d].equals(name)) {
                    d--;
                }
                if (d < 0) {
                    throw error("unknown variable '" + name + "' in " + text + (scopeSize == 0
                            ? " (no repeat encloses this line)"
                            : " (variables here: " + String.join(", ", java.util.Arrays.copyOf(scope, scopeSize)) + ")"));
                }
                emit(VAR, d);
            } else {
                throw unexpected();
            }
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

        void emit(int op, int operand) {
            if (codeLength + 2 > code.length) {
                code = java.util.Arrays.copyOf(code, code.length * 2);
            }
            code[codeLength++] = op;
            if (op == CONST || op == VAR) {
                code[codeLength++] = operand;
                depth++;
                maxDepth = Math.max(maxDepth, depth);
            } else if (op != NEG) {
                depth--;
            }
        }
    }
}
