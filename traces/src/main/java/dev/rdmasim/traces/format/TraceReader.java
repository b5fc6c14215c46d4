package dev.rdmasim.traces.format;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Streams the lines of a trace in order, checking their syntax against the format's table
 * ({@link Schema}) as it goes. Outside repeats a line is read, checked and returned. A repeat's body is
 * read once up to its {@code end} and kept compiled (tokens split, keys resolved, literal values
 * parsed, {@code ${...}} compiled); iterations then re-evaluate only the tokens with expressions, so
 * a repeat of millions of iterations needs the memory of its body's text, not of its expansion.
 * Syntax errors of a body are reported when the repeat is read, before its first line is returned.
 *
 * <p>{@link #next()} returns each declaration and call with its {@link TimeSpec} (see there for how
 * times in repeats become anchors); {@code repeat} and {@code end} are consumed here.
 */
public final class TraceReader implements AutoCloseable {
    private static final String HEADER = "rdmasim-trace";
    private static final String HEADER_MESSAGE = "expected the header 'rdmasim-trace 1'";
    /** Point base meaning "the previous line's time" (an unresolved time), as opposed to an anchor number. */
    private static final int PREV = -1;

    private final BufferedReader in;
    private final String file;
    private int lineNumber;
    private boolean headerSeen;
    private boolean ended;

    // The line being tokenized: token i is text[starts[i], ends[i]).
    private String text;
    private int[] starts = new int[16];
    private int[] ends = new int[16];
    private int tokens;

    /** Open repeats, innermost last; vars[d] is the variable of frames[d]. */
    private final Frame[] frames = new Frame[TimeSpec.MAX_ANCHORS];
    private int depth;
    private final long[] vars = new long[TimeSpec.MAX_ANCHORS];
    private final StringBuilder scratch = new StringBuilder(64);

    /** The point the next line's "previous line" means: (base, offset); base PREV or an anchor. */
    private int cursorBase = PREV;
    private long cursorOffset;
    /** Lines returned so far. */
    private long emitted;
    /** Lines returned plus repeat iterations started: the work the trace asks for, bounded by {@link #MAX_STEPS}. */
    private long steps;
    /** The compiled line being expanded, for the columns of its errors. */
    private LineItem expanding;

    /**
     * The most lines (and repeat iterations) one trace may expand to: a billion calls would take a replay
     * days, and a count of 10^18 would otherwise have the checker spin without a word.
     */
    public static final long MAX_STEPS = 1_000_000_000L;

    public TraceReader(Reader in, String fileName) {
        this.in = in instanceof BufferedReader b ? b : new BufferedReader(in, 1 << 16);
        this.file = fileName;
    }

    public static TraceReader open(Path file) throws IOException {
        return new TraceReader(new Utf8Input(Files.newInputStream(file), file.toString()), file.toString());
    }

    public String fileName() {
        return file;
    }

    /** The next declaration or call; null at the end of the trace. */
    public TraceLine next() {
        try {
            return nextLine();
        } catch (TraceError e) {
            throw inCodePoints(e);
        }
    }

    /**
     * The error with its column counted in characters (code points) rather than the UTF-16 units the
     * lexer indexes by; they differ only on a line with characters beyond the Basic Multilingual Plane.
     */
    private TraceError inCodePoints(TraceError e) {
        Position p = e.position();
        if (p == null) {
            return e;
        }
        String src = null;
        if (expanding != null && p.line() == expanding.line) {
            src = expanding.wideText;
        } else if (p.line() == lineNumber && text != null && hasSurrogates(text)) {
            src = text;
        }
        if (src == null) {
            return e;
        }
        return new TraceError(new Position(p.file(), p.line(), codePointColumn(src, p.column())), e.detail());
    }

    /** The 1-based column in code points of the 1-based UTF-16 column {@code column} of {@code src}. */
    static int codePointColumn(String src, int column) {
        return src.codePointCount(0, Math.min(Math.max(column - 1, 0), src.length())) + 1;
    }

    private static boolean hasSurrogates(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isSurrogate(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    private TraceLine nextLine() {
        while (true) {
            expanding = null;
            if (depth > 0) {
                Frame f = frames[depth - 1];
                if (f.index == f.repeat.body.length) {
                    if (++f.iteration == f.count) {
                        endFrame(f);
                        continue;
                    }
                    startIteration(f);
                }
                Object item = f.repeat.body[f.index++];
                if (item instanceof RepeatItem r) {
                    startRepeat(r);
                    continue;
                }
                expanding = (LineItem) item;
                return expanding.expand();
            }
            if (ended || !readLine()) {
                if (!headerSeen && !ended) {
                    ended = true;
                    throw Values.error(file, 1, 1, HEADER_MESSAGE);
                }
                ended = true;
                return null;
            }
            if (tokens == 0) {
                continue;
            }
            if (!headerSeen) {
                checkHeader();
                continue;
            }
            int k = keywordToken();
            String word = TraceLine.lower(token(k));
            if (word.equals("end")) {
                throw error(k, "'end' without a matching 'repeat'");
            }
            if (word.equals("repeat")) {
                RepeatItem r = readRepeat(k, new String[TimeSpec.MAX_ANCHORS], 0);
                startRepeat(r);
                continue;
            }
            expanding = compileLine(k, word, null, 0);
            return expanding.expand();
        }
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- lexing ----

    /** Reads and tokenizes the next physical line; false at the end of the input. */
    private boolean readLine() {
        String s;
        try {
            s = in.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read: " + e.getMessage(), e);
        }
        if (s == null) {
            return false;
        }
        lineNumber++;
        text = s;
        tokens = 0;
        int n = s.length();
        int i = 0;
        while (i < n) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t') {
                i++;
                continue;
            }
            if (c == '#') {
                break;
            }
            int start = i;
            while (i < n) {
                c = s.charAt(i);
                if (c == ' ' || c == '\t' || c == '#') {
                    break;
                }
                if (c == '$' && i + 1 < n && s.charAt(i + 1) == '{') {
                    int close = s.indexOf('}', i + 2);
                    if (close < 0) {
                        throw Values.error(file, lineNumber, i + 1, "unterminated '${' (expected '}')");
                    }
                    i = close + 1;
                } else {
                    i++;
                }
            }
            if (tokens == starts.length) {
                starts = Arrays.copyOf(starts, tokens * 2);
                ends = Arrays.copyOf(ends, tokens * 2);
            }
            starts[tokens] = start;
            ends[tokens++] = i;
        }
        return true;
    }

    private String token(int i) {
        return text.substring(starts[i], ends[i]);
    }

    private int column(int i) {
        return starts[i] + 1;
    }

    private TraceError error(int token, String message) {
        return Values.error(file, lineNumber, column(token), message);
    }

    private void checkHeader() {
        headerSeen = true;
        if (!token(0).equals(HEADER)) {
            throw error(0, HEADER_MESSAGE);
        }
        if (tokens < 2) {
            throw Values.error(file, lineNumber, ends[0] + 1, HEADER_MESSAGE);
        }
        if (!token(1).equals("1")) {
            throw error(1, "unsupported trace format version '" + token(1) + "' (this reader reads version 1)");
        }
        if (tokens > 2) {
            throw error(2, "unexpected '" + token(2) + "' after the header 'rdmasim-trace 1'");
        }
    }

    /** The keyword's token: 0, or 1 after a leading time. */
    private int keywordToken() {
        char c = text.charAt(starts[0]);
        if (c != '@' && c != '+') {
            return 0;
        }
        if (tokens < 2) {
            throw error(0, "expected a keyword after the time '" + token(0) + "'");
        }
        return 1;
    }

    // ---- compiling ----

    /** Compiles the current line, whose keyword is token k (lower case {@code word}), with these variables in scope. */
    private LineItem compileLine(int k, String word, String[] scope, int scopeSize) {
        Schema.Keyword kw = Schema.keyword(word);
        if (kw == null) {
            throw error(k, "unknown keyword '" + token(k) + "' (expected one of " + String.join(", ", Schema.ALL_KEYWORDS)
                    + ")" + Suggest.didYouMean(token(k), Schema.ALL_KEYWORDS));
        }
        LineItem item = new LineItem(kw, lineNumber, column(0));
        item.wideText = hasSurrogates(text) ? text : null;
        if (k == 1) {
            if (!kw.call) {
                throw error(0, kw.name + " is a declaration and takes no time (only calls start with @T or +D)");
            }
            item.timeSign = text.charAt(starts[0]);
            item.timeColumn = column(0) + 1;
            item.time = NumberTemplate.compile(Template.compile(text, starts[0] + 1, ends[0], item.timeColumn, scope,
                    scopeSize, file, lineNumber), Schema.Kind.TIME, file, lineNumber, item.timeColumn);
        }
        int slots = kw.slots();
        int[] from = new int[slots];
        int[] to = new int[slots];
        int[] columns = new int[slots];
        int positional = 0;
        int firstKey = -1;
        for (int t = k + 1; t < tokens; t++) {
            int eq = equalsSign(t);
            if (eq < 0) {
                if (firstKey >= 0) {
                    throw error(t, "positional argument '" + token(t) + "' after key=value pairs "
                            + "(positional arguments come first)");
                }
                if (positional == kw.positionals) {
                    throw error(t, "unexpected argument '" + token(t) + "' (" + usage(kw) + ")");
                }
                columns[positional] = column(t);
                from[positional] = starts[t];
                to[positional] = ends[t];
                positional++;
                continue;
            }
            if (firstKey < 0) {
                firstKey = t;
            }
            if (eq == starts[t]) {
                throw error(t, "expected key=value, got '" + token(t) + "'");
            }
            String key = TraceLine.lower(text.substring(starts[t], eq));
            if (key.contains("${")) {
                throw error(t, "a key cannot be an expression: '" + token(t) + "'");
            }
            int slot = kw.slot(key);
            if (slot < 0) {
                throw error(t, "unknown key '" + key + "' for " + kw.name + (kw.keys.length == 0
                        ? " (" + kw.name + " takes no keys)"
                        : " (expected " + String.join(", ", kw.keys) + ")" + Suggest.didYouMean(key, kw.keys)));
            }
            if (to[slot] != 0) {
                throw error(t, "key '" + key + "' is given twice");
            }
            if (eq + 1 == ends[t]) {
                throw Values.error(file, lineNumber, eq + 2, "expected a value after '" + token(t) + "'");
            }
            columns[slot] = eq + 2;
            from[slot] = eq + 1;
            to[slot] = ends[t];
        }
        if (positional < kw.positionals) {
            throw error(k, "missing " + kw.args[positional].name() + " (" + usage(kw) + ")");
        }
        for (int s = kw.positionals; s < slots; s++) {
            if (to[s] == 0 && kw.args[s].required()) {
                throw error(k, "missing required key '" + kw.args[s].name() + "' for " + kw.name);
            }
        }
        item.finish(text, from, to, columns, scope, scopeSize);
        return item;
    }

    /** Index of the first '=' of token t outside expressions, or -1. */
    private int equalsSign(int t) {
        for (int i = starts[t]; i < ends[t]; i++) {
            char c = text.charAt(i);
            if (c == '=') {
                return i;
            }
            if (c == '$' && i + 1 < ends[t] && text.charAt(i + 1) == '{') {
                i = text.indexOf('}', i + 2);
            }
        }
        return -1;
    }

    private static String usage(Schema.Keyword kw) {
        return kw.name + " takes " + kw.positionalNames() + (kw.keys.length == 0 ? "" : " and then key=value pairs");
    }

    /**
     * Reads a repeat whose header is the current line (keyword at token k) and its body up to the
     * matching {@code end}; {@code scope} holds the enclosing repeats' variables.
     */
    private RepeatItem readRepeat(int k, String[] scope, int scopeSize) {
        if (k == 1) {
            throw error(0, "repeat takes no time (a time goes on a line of its body)");
        }
        int line = lineNumber;
        int column = column(k);
        String usage = "expected 'repeat N as VAR [every=T]'";
        if (tokens < k + 2) {
            throw error(k, usage);
        }
        if (token(k + 1).equalsIgnoreCase("as")) {
            throw error(k + 1, "expected a repeat count before 'as'");
        }
        if (tokens < k + 3) {
            throw Values.error(file, lineNumber, ends[k + 1] + 1, "expected 'as' after the repeat count");
        }
        if (!token(k + 2).equalsIgnoreCase("as")) {
            throw error(k + 2, "expected 'as' after the repeat count, got '" + token(k + 2) + "'");
        }
        if (tokens < k + 4) {
            throw Values.error(file, lineNumber, ends[k + 2] + 1, "expected a variable name after 'as'");
        }
        if (scopeSize == TimeSpec.MAX_ANCHORS) {
            throw error(k, "repeats nest at most " + TimeSpec.MAX_ANCHORS + " deep");
        }
        // A literal count or every is checked here, with the rest of the header.
        NumberTemplate count = NumberTemplate.compile(Template.compile(text, starts[k + 1], ends[k + 1], column(k + 1),
                scope, scopeSize, file, line), Schema.Kind.INTEGER, file, line, column(k + 1));
        String var = token(k + 3);
        if (!isIdentifier(var)) {
            throw error(k + 3, "expected a variable name (a letter or '_', then letters, digits or '_'), got '" + var + "'");
        }
        for (int d = 0; d < scopeSize; d++) {
            if (scope[d].equals(var)) {
                throw error(k + 3, "variable '" + var + "' is already used by an enclosing repeat");
            }
        }
        NumberTemplate every = null;
        int everyColumn = 0;
        for (int t = k + 4; t < tokens; t++) {
            int eq = equalsSign(t);
            if (eq < 0) {
                throw error(t, "unexpected '" + token(t) + "' (" + usage + ")");
            }
            String key = TraceLine.lower(text.substring(starts[t], eq));
            if (!key.equals("every")) {
                throw error(t, "unknown key '" + key + "' for repeat (expected every)"
                        + Suggest.didYouMean(key, new String[] {"every"}));
            }
            if (every != null) {
                throw error(t, "key 'every' is given twice");
            }
            if (eq + 1 == ends[t]) {
                throw Values.error(file, lineNumber, eq + 2, "expected a value after '" + token(t) + "'");
            }
            everyColumn = eq + 2;
            every = NumberTemplate.compile(Template.compile(text, eq + 1, ends[t], everyColumn, scope, scopeSize, file,
                    line), Schema.Kind.TIME, file, line, everyColumn);
        }
        RepeatItem r = new RepeatItem(line, column, count, var, every, everyColumn);
        r.countColumn = column(k + 1);
        scope[scopeSize] = var;
        List<Object> body = new ArrayList<>();
        while (true) {
            if (!readLine()) {
                throw Values.error(file, line, column, "repeat without a matching 'end'");
            }
            if (tokens == 0) {
                continue;
            }
            int kk = keywordToken();
            String word = TraceLine.lower(token(kk));
            if (word.equals("end")) {
                if (kk == 1) {
                    throw error(0, "end takes no time");
                }
                if (tokens > 1) {
                    throw error(1, "unexpected '" + token(1) + "' after 'end'");
                }
                break;
            }
            if (word.equals("repeat")) {
                body.add(readRepeat(kk, scope, scopeSize + 1));
            } else {
                body.add(compileLine(kk, word, scope, scopeSize + 1));
            }
        }
        if (body.isEmpty()) {
            throw Values.error(file, line, column, "repeat has an empty body (expected lines before its 'end')");
        }
        r.body = body.toArray();
        long lines = 0;
        for (Object item : r.body) {
            long n = item instanceof RepeatItem inner ? inner.minLines() : 1;
            lines = lines > MAX_STEPS - n ? MAX_STEPS + 1 : lines + n;
        }
        r.linesPerIteration = lines;
        return r;
    }

    private static boolean isIdentifier(String s) {
        if (s.isEmpty() || !(Character.isLetter(s.charAt(0)) || s.charAt(0) == '_')) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_')) {
                return false;
            }
        }
        return true;
    }

    // ---- expanding ----

    private void startRepeat(RepeatItem r) {
        Frame f = frames[depth];
        if (f == null) {
            f = new Frame();
            frames[depth] = f;
        }
        f.repeat = r;
        f.count = r.count.eval(vars, scratch);
        f.every = r.every == null ? -1 : r.every.eval(vars, scratch);
        if (f.count == 0) {
            return;
        }
        // The iterations' lines are known in advance when the body's counts are literal: a trace that would
        // expand beyond the bound is refused at once, not after checking a billion lines.
        long lines = r.linesPerIteration == 0 ? 0
                : f.count > (MAX_STEPS + 1) / r.linesPerIteration ? MAX_STEPS + 1 : f.count * r.linesPerIteration;
        if (lines > MAX_STEPS - emitted || f.count > MAX_STEPS - steps) {
            throw tooLong(r);
        }
        f.savedBase = cursorBase;
        f.savedOffset = cursorOffset;
        f.emittedAtStart = emitted;
        f.startBase = cursorBase;
        f.startOffset = cursorOffset;
        f.iteration = 0;
        depth++;
        startIteration(f);
    }

    private TraceError tooLong(RepeatItem r) {
        return Values.error(file, r.line, r.countColumn, String.format(java.util.Locale.US,
                "this repeat makes the trace longer than %,d lines and iterations, the most a trace may expand to"
                        + " (split the run into several traces)", MAX_STEPS));
    }

    private void startIteration(Frame f) {
        if (++steps > MAX_STEPS) {
            throw tooLong(f.repeat);
        }
        vars[depth - 1] = f.iteration;
        if (f.every >= 0) {
            try {
                cursorBase = f.startBase;
                cursorOffset = Math.addExact(f.startOffset, Math.multiplyExact(f.iteration, f.every));
            } catch (ArithmeticException e) {
                throw Values.error(file, f.repeat.line, f.repeat.everyColumn, "iteration " + f.iteration
                        + " of this repeat starts beyond the largest time");
            }
        }
        // Without every, the iteration starts where the previous one left the cursor.
        f.iterationBase = cursorBase;
        f.iterationOffset = cursorOffset;
        f.index = 0;
    }

    private void endFrame(Frame f) {
        depth--;
        if (emitted == f.emittedAtStart) {
            cursorBase = f.savedBase;
            cursorOffset = f.savedOffset;
        } else {
            cursorBase = PREV;
            cursorOffset = 0;
        }
        f.repeat = null;
    }

    /** The time spec of a line whose own time is sign/offset; updates the cursor and anchors. */
    private TimeSpec timeOf(char sign, long offset, int line, int column) {
        TimeSpec spec;
        if (sign == '@' && depth == 0) {
            spec = TimeSpec.absolute(offset);
        } else {
            int base;
            long at;
            if (sign == '@') {
                Frame f = frames[depth - 1];
                base = f.iterationBase;
                at = f.iterationOffset;
            } else {
                base = cursorBase;
                at = cursorOffset;
            }
            try {
                at = Math.addExact(at, offset);
            } catch (ArithmeticException e) {
                throw Values.error(file, line, column, "this line's time is beyond the largest time");
            }
            if (base == PREV) {
                spec = sign == 0 && at == 0 ? TimeSpec.NONE : TimeSpec.relative(at);
                int anchor = materialize(at);
                if (anchor >= 0) {
                    spec = spec.settingAnchor(anchor);
                }
            } else {
                spec = TimeSpec.anchored(base, at);
            }
        }
        cursorBase = PREV;
        cursorOffset = 0;
        emitted++;
        steps++;
        return spec;
    }

    /**
     * A line at (previous line + lineOffset) runs now: every point still waiting for "the previous
     * line's time" becomes relative to this line's time, held in the anchor of the outermost repeat
     * with such a point. Returns that anchor, or -1 when no point was waiting.
     */
    private int materialize(long lineOffset) {
        int anchor = -1;
        for (int d = 0; d < depth; d++) {
            Frame f = frames[d];
            if (f.startBase == PREV || f.iterationBase == PREV || f.savedBase == PREV) {
                if (anchor < 0) {
                    anchor = d;
                }
                if (f.startBase == PREV) {
                    f.startBase = anchor;
                    f.startOffset -= lineOffset;
                }
                if (f.iterationBase == PREV) {
                    f.iterationBase = anchor;
                    f.iterationOffset -= lineOffset;
                }
                if (f.savedBase == PREV) {
                    f.savedBase = anchor;
                    f.savedOffset -= lineOffset;
                }
            }
        }
        return anchor;
    }

    /** One open repeat: where it is in its body and the time points its lines are placed against. */
    private static final class Frame {
        RepeatItem repeat;
        long count;
        long every;
        long iteration;
        int index;
        long emittedAtStart;
        /** The repeat's start (used with every), its current iteration's start, and the cursor before it. */
        int startBase;
        long startOffset;
        int iterationBase;
        long iterationOffset;
        int savedBase;
        long savedOffset;
    }

    /** A repeat as read: header templates and the compiled body (LineItem or RepeatItem). */
    private static final class RepeatItem {
        final int line;
        final int column;
        final NumberTemplate count;
        final String var;
        final NumberTemplate every;
        final int everyColumn;
        int countColumn;
        Object[] body;
        /** Lines one iteration emits at least (nested repeats with literal counts counted), at most MAX_STEPS + 1. */
        long linesPerIteration;

        /** Lines the whole repeat emits at least: 0 unless its count is literal. */
        long minLines() {
            if (!count.isConstant()) {
                return 0;
            }
            long c = count.eval(null, null);
            return linesPerIteration == 0 ? 0
                    : c > (MAX_STEPS + 1) / linesPerIteration ? MAX_STEPS + 1 : c * linesPerIteration;
        }

        RepeatItem(int line, int column, NumberTemplate count, String var, NumberTemplate every, int everyColumn) {
            this.line = line;
            this.column = column;
            this.count = count;
            this.var = var;
            this.every = every;
            this.everyColumn = everyColumn;
        }
    }

    /**
     * A compiled declaration or call: its tokens split into slots, literal values parsed once, and the
     * slots with expressions listed for evaluation per expansion.
     */
    private final class LineItem {
        final Schema.Keyword keyword;
        final int line;
        final int column;
        char timeSign;
        int timeColumn;
        NumberTemplate time;
        int[] columns;
        boolean[] exact;
        String[] text;
        long[] numbers;
        Object[] objects;
        /** The slots whose values have expressions. */
        DynamicSlot[] dynamic;
        /** The line's text when it has characters beyond the BMP (its columns then differ from UTF-16 indexes), else null. */
        String wideText;
        /** The slots' columns in code points, as the lines report them. */
        int[] lineColumns;

        LineItem(Schema.Keyword keyword, int line, int column) {
            this.keyword = keyword;
            this.line = line;
            this.column = column;
        }

        /** Parses the literal slots once and compiles the others; slot s is src[from[s], to[s]) (to = 0: absent). */
        void finish(String src, int[] from, int[] to, int[] columns, String[] scope, int scopeSize) {
            int slots = from.length;
            this.columns = columns;
            this.exact = new boolean[slots];
            this.text = new String[slots];
            this.numbers = new long[slots];
            this.objects = keyword.anyStructured ? new Object[slots] : null;
            List<DynamicSlot> dyn = new ArrayList<>();
            for (int s = 0; s < slots; s++) {
                if (to[s] == 0) {
                    continue;
                }
                Template t = Template.compile(src, from[s], to[s], columns[s], scope, scopeSize, file, line);
                if (t.isLiteral()) {
                    exact[s] = true;
                    text[s] = Values.parseSlot(keyword, s, t.literal, file, line, columns[s], true, numbers, objects);
                } else {
                    dyn.add(DynamicSlot.compile(keyword, s, t, src, from[s], to[s], columns[s], scope, scopeSize, file, line));
                }
            }
            dynamic = dyn.toArray(new DynamicSlot[0]);
            lineColumns = columns;
            if (wideText != null) {
                lineColumns = columns.clone();
                for (int s = 0; s < slots; s++) {
                    lineColumns[s] = codePointColumn(wideText, columns[s]);
                }
            }
        }

        /** The buffers' and remote regions' positions of these values with columns in code points. */
        private Object[] widePositions(Object[] obj) {
            for (int s = 0; s < obj.length; s++) {
                if (obj[s] instanceof Remote r) {
                    obj[s] = new Remote(r.mr(), r.offset(), wide(r.position()));
                } else if (obj[s] instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Buffer) {
                    List<Buffer> moved = new ArrayList<>(list.size());
                    for (Object o : list) {
                        Buffer b = (Buffer) o;
                        moved.add(new Buffer(b.mr(), b.offset(), b.length(), wide(b.position())));
                    }
                    obj[s] = List.copyOf(moved);
                }
            }
            return obj;
        }

        private Position wide(Position p) {
            return new Position(p.file(), p.line(), codePointColumn(wideText, p.column()));
        }

        /** The trace line for the current repeat variables, with its time. */
        TraceLine expand() {
            long own = timeSign == 0 ? 0 : time.eval(vars, scratch);
            String[] t = text;
            long[] num = numbers;
            Object[] obj = objects;
            if (dynamic.length > 0) {
                t = t.clone();
                num = num.clone();
                obj = obj == null ? null : obj.clone();
                for (DynamicSlot d : dynamic) {
                    t[d.slot] = d.eval(vars, scratch, num, obj);
                }
            }
            if (wideText != null && obj != null) {
                obj = widePositions(obj == objects ? obj.clone() : obj);
            }
            TimeSpec spec = timeOf(timeSign, own, line, timeSign != 0 ? timeColumn : column);
            return new TraceLine(keyword, file, line, column, spec, t, lineColumns, num, obj, exact);
        }
    }
}
