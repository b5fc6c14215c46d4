package dev.rdmasim.traces.replay;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One CSV row built as UTF-8 bytes in a reusable buffer and written in one call: a replay writes a row per
 * request, millions of them, so fields are appended without making a string or running a charset encoder.
 */
final class CsvLine {
    private byte[] buf = new byte[256];
    private int len;
    private final byte[] digits = new byte[20];

    CsvLine start() {
        len = 0;
        return this;
    }

    CsvLine comma() {
        put((byte) ',');
        return this;
    }

    CsvLine number(long v) {
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                return ascii(Long.toString(v));
            }
            put((byte) '-');
            v = -v;
        }
        int n = 0;
        do {
            digits[n++] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        room(n);
        while (n > 0) {
            buf[len++] = digits[--n];
        }
        return this;
    }

    /** A text field (null: empty), quoted when it holds a comma, quote or line break. */
    CsvLine text(String s) {
        if (s == null) {
            return this;
        }
        boolean quote = false;
        boolean ascii = true;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            quote |= c == ',' || c == '"' || c == '\n' || c == '\r';
            ascii &= c < 0x80;
        }
        if (quote) {
            s = '"' + s.replace("\"", "\"\"") + '"';
        }
        if (ascii) {
            return ascii(s);
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        room(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
        return this;
    }

    private CsvLine ascii(String s) {
        int n = s.length();
        room(n);
        for (int i = 0; i < n; i++) {
            buf[len++] = (byte) s.charAt(i);
        }
        return this;
    }

    /** Ends the row and writes it. */
    void writeTo(OutputStream out) throws IOException {
        put((byte) '\n');
        out.write(buf, 0, len);
    }

    private void put(byte b) {
        room(1);
        buf[len++] = b;
    }

    private void room(int n) {
        if (len + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(len + n, buf.length * 2));
        }
    }
}
