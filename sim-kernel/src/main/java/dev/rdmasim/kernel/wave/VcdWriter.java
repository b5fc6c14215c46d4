package dev.rdmasim.kernel.wave;

import dev.rdmasim.kernel.stats.TimeSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Writes an IEEE 1364 value change dump (VCD) of simulated signals, for viewing in GTKWave. Times are in
 * picoseconds ({@code $timescale 1ps}).
 *
 * <p>Signals are declared first; the header is written at {@link #begin()} or at the first value change after
 * the instant the writer was made, whichever comes first, and no signal can be declared after it. Changes at
 * that instant before the header set the signals' initial values, so a setup made at time zero may go on
 * declaring signals after some blocks have started changing theirs. From then on only changes are written, each
 * preceded by a {@code #time} line when simulated time has moved on. The output depends only on the declarations
 * and the changes, so the same run always gives the same file.
 *
 * <p>Value changes are formatted into an internal buffer and do not allocate. Not thread-safe.
 */
public final class VcdWriter implements AutoCloseable {

    private static final int BUFFER_SIZE = 8192;
    // The longest change line is "b" + 64 bits + " " + identifier + "\n"; a time line "#" + 19 digits + "\n".
    private static final int MAX_LINE = 96;
    private static final int FIRST_ID_CHAR = 33;
    private static final int ID_RADIX = 94;

    private final Writer out;
    private final TimeSource time;
    private final SignalFilter filter;
    private final char[] buffer = new char[BUFFER_SIZE];
    private int length;
    private final List<TracedSignal> traced = new ArrayList<>();
    private final Set<String> declared = new HashSet<>();
    private boolean headerWritten;
    private boolean closed;
    private long lastTimePs;
    /** The instant the writer was made: changes then, before the header, set initial values. */
    private final long startPs;

    /**
     * @param out receives the dump; closed by {@link #close()}
     * @param time simulated time, read at each written change
     * @param filter selects the signals to trace; the others are declared disabled
     */
    public VcdWriter(Writer out, TimeSource time, SignalFilter filter) {
        this.out = Objects.requireNonNull(out, "out");
        this.time = Objects.requireNonNull(time, "time");
        this.filter = Objects.requireNonNull(filter, "filter");
        this.startPs = time.nowPs();
    }

    /**
     * Declares a signal with initial value 0. The dotted prefix of the name becomes nested VCD scopes and the
     * last component the variable's name.
     *
     * @param fullName dotted hierarchical name, e.g. {@code nicA.dma.tagsInUse}
     * @param width width in bits, 1 to 64
     * @return the signal; disabled if the filter does not select it
     * @throws IllegalStateException if the header was already written
     * @throws IllegalArgumentException if the name is malformed or already declared, or the width is out of range
     */
    public Signal signal(String fullName, int width) {
        Objects.requireNonNull(fullName, "fullName");
        if (headerWritten || closed) {
            throw new IllegalStateException("cannot declare signal " + fullName
                    + ": the VCD header was already written, so all signals must be declared before begin() or the"
                    + " first value change");
        }
        if (width < 1 || width > 64) {
            throw new IllegalArgumentException("width of signal " + fullName + " must be 1 to 64, got " + width);
        }
        checkName(fullName);
        if (!declared.add(fullName)) {
            throw new IllegalArgumentException("signal " + fullName + " is already declared");
        }
        if (!filter.matches(fullName)) {
            return new DisabledSignal(fullName, width);
        }
        TracedSignal signal = new TracedSignal(this, fullName, width, identifier(traced.size()));
        traced.add(signal);
        return signal;
    }

    /**
     * The filter's globs that select none of the signals declared so far, in the order given: a misspelt glob would
     * otherwise give an empty waveform without a word.
     */
    public List<String> unmatchedGlobs() {
        List<String> none = new ArrayList<>();
        for (String glob : filter.globs()) {
            if (declared.stream().noneMatch(SignalFilter.parse(glob)::matches)) {
                none.add(glob);
            }
        }
        return none;
    }

    /**
     * Refuses a filter glob that selects none of the signals declared so far; call it once the model is built.
     *
     * @param example a glob that does select some of them, for the message
     * @throws SignalGlobError naming the first such glob, the number of signals and the example
     */
    public void requireEveryGlobMatches(String example) {
        List<String> none = unmatchedGlobs();
        if (!none.isEmpty()) {
            throw new SignalGlobError("signal glob '" + none.get(0) + "' matches none of the " + declared.size()
                    + " signals (names such as " + example + ", globs with * and ?)");
        }
    }

    /** How many signals have been declared (traced or not). */
    public int declaredSignals() {
        return declared.size();
    }

    /**
     * Writes the header and the initial values at the current time, ending the declarations. Does nothing if
     * the header was already written.
     */
    public void begin() {
        checkOpen();
        if (!headerWritten) {
            writeHeader(time.nowPs());
        }
    }

    /** Passes everything written so far to the underlying writer and flushes it. */
    public void flush() {
        checkOpen();
        try {
            drain();
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Marks the end of the dump at the current time, so that viewers show the last values up to it, then flushes
     * and closes the underlying writer. Writes the header first if there was no change at all. Closing twice does
     * nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            try {
                long now = time.nowPs();
                if (!headerWritten) {
                    writeHeader(now);
                } else if (now > lastTimePs) {
                    writeTime(now);
                }
                drain();
            } finally {
                out.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Called by a traced signal whose value changed. */
    void writeChange(TracedSignal signal, long value) {
        checkOpen();
        long now = time.nowPs();
        if (!headerWritten && now == startPs) {
            // Still setting up at the start instant: the value becomes the initial one, and blocks built later
            // in the same setup may still declare their signals.
            signal.value = value;
            return;
        }
        if (!headerWritten) {
            // The initial values hold from the start instant; the change follows at its own time.
            writeHeader(startPs);
        }
        if (now != lastTimePs) {
            if (now < lastTimePs) {
                throw new IllegalStateException("simulated time went backwards from " + lastTimePs + " ps to "
                        + now + " ps while setting signal " + signal.fullName());
            }
            writeTime(now);
        }
        reserve(MAX_LINE);
        appendValue(signal.width(), value, signal.id);
        signal.value = value;
    }

    private void writeHeader(long now) {
        if (now < 0) {
            throw new IllegalStateException("simulated time is negative: " + now + " ps");
        }
        appendText("$version rdmasim $end\n");
        appendText("$timescale 1ps $end\n");
        Scope root = new Scope();
        for (TracedSignal signal : traced) {
            Scope scope = root;
            String[] components = signal.fullName().split("\\.");
            for (int i = 0; i < components.length - 1; i++) {
                scope = scope.children.computeIfAbsent(components[i], name -> new Scope());
            }
            scope.signals.add(signal);
        }
        writeScopeBody(root);
        appendText("$enddefinitions $end\n");
        headerWritten = true;
        writeTime(now);
        appendText("$dumpvars\n");
        for (TracedSignal signal : traced) {
            reserve(MAX_LINE);
            appendValue(signal.width(), signal.value, signal.id);
        }
        appendText("$end\n");
    }

    private void writeScopeBody(Scope scope) {
        for (TracedSignal signal : scope.signals) {
            String name = signal.fullName().substring(signal.fullName().lastIndexOf('.') + 1);
            appendText("$var wire " + signal.width() + " " + new String(signal.id) + " " + name + " $end\n");
        }
        for (Map.Entry<String, Scope> child : scope.children.entrySet()) {
            appendText("$scope module " + child.getKey() + " $end\n");
            writeScopeBody(child.getValue());
            appendText("$upscope $end\n");
        }
    }

    private void writeTime(long now) {
        if (now < 0) {
            throw new IllegalStateException("simulated time is negative: " + now + " ps");
        }
        reserve(MAX_LINE);
        buffer[length++] = '#';
        appendDecimal(now);
        buffer[length++] = '\n';
        lastTimePs = now;
    }

    /** Scalar form {@code 1!} for one bit; vector form {@code b1010 !} without leading zeros otherwise. */
    private void appendValue(int width, long value, char[] id) {
        if (width == 1) {
            buffer[length++] = value == 0 ? '0' : '1';
        } else {
            buffer[length++] = 'b';
            int bits = Math.max(1, 64 - Long.numberOfLeadingZeros(value));
            for (int bit = bits - 1; bit >= 0; bit--) {
                buffer[length++] = ((value >>> bit) & 1) == 0 ? '0' : '1';
            }
            buffer[length++] = ' ';
        }
        System.arraycopy(id, 0, buffer, length, id.length);
        length += id.length;
        buffer[length++] = '\n';
    }

    private void appendDecimal(long nonNegative) {
        int digits = 1;
        for (long rest = nonNegative / 10; rest != 0; rest /= 10) {
            digits++;
        }
        int end = length + digits;
        long rest = nonNegative;
        for (int i = end - 1; i >= length; i--) {
            buffer[i] = (char) ('0' + rest % 10);
            rest /= 10;
        }
        length = end;
    }

    private void appendText(String text) {
        int from = 0;
        while (from < text.length()) {
            if (length == buffer.length) {
                drainUnchecked();
            }
            int n = Math.min(text.length() - from, buffer.length - length);
            text.getChars(from, from + n, buffer, length);
            length += n;
            from += n;
        }
    }

    private void reserve(int chars) {
        if (buffer.length - length < chars) {
            drainUnchecked();
        }
    }

    private void drainUnchecked() {
        try {
            drain();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void drain() throws IOException {
        out.write(buffer, 0, length);
        length = 0;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("VcdWriter is closed");
        }
    }

    /** Bijective base-94 over the printable ASCII characters: !, ", ..., ~, !!, !", ... */
    private static char[] identifier(int index) {
        StringBuilder id = new StringBuilder();
        int rest = index;
        do {
            id.append((char) (FIRST_ID_CHAR + rest % ID_RADIX));
            rest = rest / ID_RADIX - 1;
        } while (rest >= 0);
        return id.toString().toCharArray();
    }

    private static void checkName(String fullName) {
        boolean valid = !fullName.isEmpty() && !fullName.startsWith(".") && !fullName.endsWith(".")
                && !fullName.contains("..");
        for (int i = 0; valid && i < fullName.length(); i++) {
            char c = fullName.charAt(i);
            valid = c > ' ' && c <= '~';
        }
        if (!valid) {
            throw new IllegalArgumentException("invalid signal name '" + fullName
                    + "': expected non-empty components of printable ASCII without spaces, joined by dots");
        }
    }

    /** A VCD scope being assembled for the header; children keep first-declaration order. */
    private static final class Scope {
        final List<TracedSignal> signals = new ArrayList<>();
        final Map<String, Scope> children = new LinkedHashMap<>();
    }
}
