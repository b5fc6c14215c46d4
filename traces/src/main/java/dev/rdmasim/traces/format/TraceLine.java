package dev.rdmasim.traces.format;

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One declaration or call of a trace, with repeat variables substituted and every value already
 * checked against its kind by the reader (so the accessor for a key's own kind does not fail). Values
 * are kept per argument slot as text, plus the parsed number or object of the slot's kind. Immutable.
 *
 * <p>Accessors take keys in lower case as the spec writes them; a key the keyword does not have is
 * a programming error ({@link IllegalArgumentException}). Asking a value for another kind than its
 * own parses its text as that kind, and a bad value is a {@link TraceError} at the value saying what
 * was expected (for example {@code expected a size such as 4KiB, got '4KB7'}).
 */
public final class TraceLine {
    /**
     * Marks a slot whose value was computed from expressions without building its text; the text is
     * made from the value when asked for. Compared by identity.
     */
    @SuppressWarnings("StringOperationCanBeSimplified")
    static final String COMPUTED = new String("(computed)");

    private final Schema.Keyword keyword;
    private final String file;
    private final int line;
    private final int column;
    private final TimeSpec time;
    /** Per slot: the text (null: absent), its column, and the parsed value of the slot's kind. */
    private final String[] text;
    private final int[] columns;
    private final long[] numbers;
    private final Object[] objects;
    /** Whether a slot's text is as written in the file (not an expansion): errors inside it can point into it. */
    private final boolean[] exact;

    TraceLine(Schema.Keyword keyword, String file, int line, int column, TimeSpec time, String[] text, int[] columns,
            long[] numbers, Object[] objects, boolean[] exact) {
        this.keyword = keyword;
        this.file = file;
        this.line = line;
        this.column = column;
        this.time = time;
        this.text = text;
        this.columns = columns;
        this.numbers = numbers;
        this.objects = objects;
        this.exact = exact;
    }

    /** Where the line starts (its time, or its keyword). */
    public Position position() {
        return new Position(file, line, column);
    }

    public String file() {
        return file;
    }

    public int lineNumber() {
        return line;
    }

    /** The keyword, lower case. */
    public String keyword() {
        return keyword.name;
    }

    /** A call (runs at its time) rather than a declaration (builds the setup). */
    public boolean isCall() {
        return keyword.call;
    }

    public TimeSpec time() {
        return time;
    }

    Schema.Keyword schema() {
        return keyword;
    }

    // ---- positional arguments ----

    public int positionalCount() {
        return keyword.positionals;
    }

    public String positional(int i) {
        return textAt(checkPositional(i));
    }

    public Position positionalPosition(int i) {
        return new Position(file, line, columns[checkPositional(i)]);
    }

    /** {@code NDK_CQ_NOTIFY_*} from {@code ANY}, {@code SOLICITED} or {@code ERRORS}. */
    public int notifyType(int positionalIndex) {
        int s = checkPositional(positionalIndex);
        if (keyword.args[s].kind() == Schema.Kind.NOTIFY) {
            return (int) numbers[s];
        }
        return Values.notifyType(textAt(s), file, line, columns[s]);
    }

    /** A positional buffer argument ({@code MR+OFFSET:LENGTH}) of {@code check} and {@code dump}. */
    public Buffer buffer(int positionalIndex) {
        int s = checkPositional(positionalIndex);
        @SuppressWarnings("unchecked")
        List<Buffer> list = keyword.args[s].kind() == Schema.Kind.BUFFERS ? (List<Buffer>) objects[s]
                : Values.buffers(textAt(s), file, line, columns[s], exact[s]);
        if (list.size() != 1) {
            throw new TraceError(new Position(file, line, columns[s]), "expected one buffer MR+OFFSET:LENGTH, got "
                    + list.size());
        }
        return list.get(0);
    }

    private int checkPositional(int i) {
        if (i < 0 || i >= keyword.positionals) {
            throw new IllegalArgumentException(keyword.name + " has " + keyword.positionals + " positional arguments, not "
                    + (i + 1));
        }
        return i;
    }

    // ---- keys ----

    public boolean has(String key) {
        return text[keyword.slotOrThrow(key)] != null;
    }

    /** Where the key's value starts; the line's position when the key is absent. */
    public Position position(String key) {
        int s = keyword.slotOrThrow(key);
        return text[s] == null ? position() : new Position(file, line, columns[s]);
    }

    public String text(String key) {
        return textAt(present(key));
    }

    public String text(String key, String dflt) {
        int s = keyword.slotOrThrow(key);
        return text[s] == null ? dflt : textAt(s);
    }

    /** A slot's text; for a computed value, its canonical form (sizes in bytes, times in ps). */
    private String textAt(int s) {
        String t = text[s];
        if (t != COMPUTED) {
            return t;
        }
        switch (keyword.args[s].kind()) {
            case TIME:
                return numbers[s] + "ps";
            case BUFFERS:
                StringBuilder b = new StringBuilder();
                for (Object o : (List<?>) objects[s]) {
                    Buffer buf = (Buffer) o;
                    b.append(b.length() == 0 ? "" : ",").append(buf.mr()).append('+').append(buf.offset()).append(':')
                            .append(buf.length());
                }
                return b.toString();
            case REMOTE:
                Remote r = (Remote) objects[s];
                return r.mr() + "+" + r.offset();
            default:
                return Long.toString(numbers[s]);
        }
    }

    /** A non-negative decimal or {@code 0x} hexadecimal integer. */
    public long integer(String key) {
        return integerAt(present(key));
    }

    public long integer(String key, long dflt) {
        int s = keyword.slotOrThrow(key);
        return text[s] == null ? dflt : integerAt(s);
    }

    private long integerAt(int s) {
        return ownKind(s, Schema.Kind.INTEGER) ? numbers[s] : Values.integer(textAt(s), file, line, columns[s]);
    }

    /** Bytes, from an integer with an optional unit B, KB, KiB, MB, MiB, GB, GiB, TB or TiB. */
    public long size(String key) {
        return sizeAt(present(key));
    }

    public long size(String key, long dflt) {
        int s = keyword.slotOrThrow(key);
        return text[s] == null ? dflt : sizeAt(s);
    }

    private long sizeAt(int s) {
        return ownKind(s, Schema.Kind.SIZE) ? numbers[s] : Values.size(textAt(s), file, line, columns[s]);
    }

    /** Picoseconds, from a decimal number with a unit ps, ns, us, ms or s. */
    public long time(String key) {
        return timeAt(present(key));
    }

    public long time(String key, long dflt) {
        int s = keyword.slotOrThrow(key);
        return text[s] == null ? dflt : timeAt(s);
    }

    private long timeAt(int s) {
        return ownKind(s, Schema.Kind.TIME) ? numbers[s] : Values.time(textAt(s), file, line, columns[s]);
    }

    /** The line's {@code expect=} NTSTATUS, or {@code dflt} when it states none. */
    public int expectedStatus(int dflt) {
        int s = keyword.expectSlot;
        if (s < 0 || text[s] == null) {
            return dflt;
        }
        return ownKind(s, Schema.Kind.STATUS) ? (int) numbers[s] : (int) Values.status(textAt(s), file, line, columns[s]);
    }

    /** Whether the line states the status it expects ({@code expect=}). */
    public boolean expects() {
        int s = keyword.expectSlot;
        return s >= 0 && text[s] != null;
    }

    /** {@code NDK_OP_FLAG_*} values; 0 when absent. */
    public int callFlags(String key) {
        int s = keyword.slotOrThrow(key);
        if (text[s] == null) {
            return 0;
        }
        return ownKind(s, Schema.Kind.CALL_FLAGS) ? (int) numbers[s]
                : Values.callFlags(textAt(s), file, line, columns[s], exact[s]);
    }

    /** {@code NDK_MR_FLAG_*} values; 0 (local read only) when absent. */
    public int mrFlags(String key) {
        int s = keyword.slotOrThrow(key);
        if (text[s] == null) {
            return 0;
        }
        return ownKind(s, Schema.Kind.MR_FLAGS) ? (int) numbers[s]
                : Values.mrFlags(textAt(s), file, line, columns[s], exact[s]);
    }

    /** The buffers of a comma-separated {@code MR+OFFSET:LENGTH} list; empty when absent. */
    @SuppressWarnings("unchecked")
    public List<Buffer> buffers(String key) {
        int s = keyword.slotOrThrow(key);
        if (text[s] == null) {
            return Collections.emptyList();
        }
        return ownKind(s, Schema.Kind.BUFFERS) ? (List<Buffer>) objects[s]
                : Values.buffers(textAt(s), file, line, columns[s], exact[s]);
    }

    public Remote remote(String key) {
        int s = present(key);
        return ownKind(s, Schema.Kind.REMOTE) ? (Remote) objects[s] : Values.remote(textAt(s), file, line, columns[s], exact[s]);
    }

    /** The bytes of a hexadecimal value (a fresh array). */
    public byte[] bytes(String key) {
        int s = present(key);
        return ownKind(s, Schema.Kind.BYTES) ? ((byte[]) objects[s]).clone() : Values.bytes(textAt(s), file, line, columns[s]);
    }

    /** The bytes of a hexadecimal value, or an empty array when absent. */
    public byte[] bytes(String key, byte[] dflt) {
        return has(key) ? bytes(key) : dflt;
    }

    /** An {@code mr} line's fill: {@link Fill#ZERO} when absent. */
    public Fill fill(String key) {
        int s = keyword.slotOrThrow(key);
        if (text[s] == null) {
            return Fill.ZERO;
        }
        return ownKind(s, Schema.Kind.FILL) ? (Fill) objects[s] : Values.fill(textAt(s), file, line, columns[s], exact[s]);
    }

    /** A host's {@code set=KEY=VALUE,...} profile settings in order; empty when absent. */
    @SuppressWarnings("unchecked")
    public Map<String, String> settings(String key) {
        int s = keyword.slotOrThrow(key);
        if (text[s] == null) {
            return Collections.emptyMap();
        }
        return ownKind(s, Schema.Kind.SETTINGS) ? (Map<String, String>) objects[s]
                : Values.settings(textAt(s), file, line, columns[s], exact[s]);
    }

    private boolean ownKind(int slot, Schema.Kind kind) {
        return keyword.args[slot].kind() == kind;
    }

    private int present(String key) {
        int s = keyword.slotOrThrow(key);
        if (text[s] == null) {
            throw new TraceError(position(), "missing key '" + key + "' for " + keyword.name);
        }
        return s;
    }

    /** The line in the format's own syntax (times as the reader resolved them, values as expanded). */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        b.append(file).append(':').append(line).append(": ");
        switch (time.kind()) {
            case ABSOLUTE -> b.append('@').append(time.ps()).append("ps ");
            case RELATIVE -> b.append('+').append(time.ps()).append("ps ");
            case ANCHORED -> b.append("anchor").append(time.anchor()).append('+').append(time.ps()).append("ps ");
            default -> { }
        }
        b.append(keyword.name);
        for (int s = 0; s < text.length; s++) {
            if (text[s] == null) {
                continue;
            }
            b.append(' ');
            if (s >= keyword.positionals) {
                b.append(keyword.args[s].name()).append('=');
            }
            b.append(textAt(s));
        }
        return b.toString();
    }

    /** Lower case without allocating when it already is. */
    static String lower(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                return s.toLowerCase(Locale.ROOT);
            }
        }
        return s;
    }
}
