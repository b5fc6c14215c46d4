package dev.rdmasim.traces.format;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A trace file's bytes as characters, strictly UTF-8: bytes that are not UTF-8 are a {@link TraceError}
 * at the line and column (in characters) where they stand, naming the bytes, and so is a byte-order mark
 * (which the format does not allow; editors add one silently). The JDK's own decoder would report only
 * "Input length = 1", with no place in the file.
 */
final class Utf8Input extends Reader {
    private final InputStream in;
    private final String file;
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final ByteBuffer bytes = ByteBuffer.allocate(1 << 16);
    private boolean eof;
    private boolean flushed;
    private boolean started;
    // The position of the next character: line and column as TraceReader counts them (column in code points).
    private int line = 1;
    private int column = 1;
    private boolean afterCr;

    Utf8Input(InputStream in, String file) {
        this.in = in;
        this.file = file;
        bytes.flip();
    }

    @Override
    public int read(char[] cbuf, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (!started) {
            started = true;
            checkStart();
        }
        CharBuffer out = CharBuffer.wrap(cbuf, off, len);
        while (true) {
            if (flushed) {
                return -1;
            }
            CoderResult r = eof ? CoderResult.UNDERFLOW : decoder.decode(bytes, out, false);
            int produced = out.position() - off;
            if (r.isError()) {
                if (produced > 0) {
                    advance(cbuf, off, produced);
                    return produced; // the next call stops at the bad bytes with nothing before them
                }
                throw notUtf8(r.length());
            }
            if (produced > 0) {
                advance(cbuf, off, produced);
                return produced;
            }
            if (r.isOverflow()) {
                throw new IllegalStateException("no room to decode into " + len + " chars");
            }
            if (eof) {
                CoderResult end = decoder.decode(bytes, out, true);
                if (end.isError()) {
                    throw notUtf8(end.length());
                }
                if (bytes.hasRemaining()) {
                    throw notUtf8(bytes.remaining()); // a sequence cut off by the end of the file
                }
                decoder.flush(out);
                flushed = true;
                produced = out.position() - off;
                if (produced > 0) {
                    advance(cbuf, off, produced);
                    return produced;
                }
                return -1;
            }
            fill();
        }
    }

    /** Reads more bytes behind the ones not yet decoded; sets eof at the end of the stream. */
    private void fill() throws IOException {
        bytes.compact();
        int n = in.read(bytes.array(), bytes.position(), bytes.remaining());
        if (n < 0) {
            eof = true;
        } else {
            bytes.position(bytes.position() + n);
        }
        bytes.flip();
    }

    /** A byte-order mark is refused with what it is; a UTF-16 mark also says the file is not UTF-8. */
    private void checkStart() throws IOException {
        while (!eof && bytes.remaining() < 3) {
            fill();
        }
        int n = bytes.remaining();
        int b0 = n > 0 ? bytes.get(0) & 0xff : -1;
        int b1 = n > 1 ? bytes.get(1) & 0xff : -1;
        int b2 = n > 2 ? bytes.get(2) & 0xff : -1;
        if (b0 == 0xEF && b1 == 0xBB && b2 == 0xBF) {
            throw Values.error(file, 1, 1, "the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which a"
                    + " trace may not have: save it as UTF-8 without a BOM");
        }
        if ((b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF)) {
            throw Values.error(file, 1, 1, String.format(Locale.US, "the file starts with a UTF-16 byte-order mark"
                    + " (bytes %02X %02X): a trace is UTF-8 text, save it as UTF-8", b0, b1));
        }
    }

    private TraceError notUtf8(int length) {
        StringBuilder b = new StringBuilder();
        int at = bytes.position();
        for (int i = 0; i < length && at + i < bytes.limit(); i++) {
            b.append(i == 0 ? "" : " ").append(String.format(Locale.US, "%02X", bytes.get(at + i) & 0xff));
        }
        return Values.error(file, line, column, "bytes that are not UTF-8 (" + b + "): a trace is UTF-8 text");
    }

    /** Moves the position over the characters just produced; line ends as BufferedReader counts them. */
    private void advance(char[] cbuf, int off, int n) {
        for (int i = off; i < off + n; i++) {
            char c = cbuf[i];
            if (c == '\n') {
                if (!afterCr) {
                    line++;
                }
                column = 1;
                afterCr = false;
            } else if (c == '\r') {
                line++;
                column = 1;
                afterCr = true;
            } else {
                afterCr = false;
                if (!Character.isLowSurrogate(c)) {
                    column++;
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
