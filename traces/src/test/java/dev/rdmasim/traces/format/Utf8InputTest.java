package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The trace file's decoder: text comes out as written whatever the stream's chunking; bytes that are not UTF-8 are
 * reported with their hex at the line and column (in code points, after CR, LF and CRLF line ends) where they start;
 * byte-order marks are refused with what they are, and only a whole mark is one.
 */
class Utf8InputTest {

    /** Hands out at most {@code chunk} bytes per read, as a pipe or a slow disk may. */
    private static InputStream chunked(byte[] data, int chunk) {
        return new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, chunk));
            }
        };
    }

    /** Everything the input gives, or "error: file:line:col: detail". */
    private static String drain(byte[] data, int chunk, int bufferSize) {
        StringBuilder text = new StringBuilder();
        try (Utf8Input in = new Utf8Input(chunked(data, chunk), "t.trace")) {
            char[] buf = new char[bufferSize];
            assertThat(in.read(buf, 0, 0)).isZero();
            for (int n = in.read(buf, 0, buf.length); n >= 0; n = in.read(buf, 0, buf.length)) {
                assertThat(n).isPositive();
                text.append(buf, 0, n);
            }
            assertThat(in.read(buf, 0, buf.length)).as("stays at the end").isEqualTo(-1);
            return text.toString();
        } catch (TraceError e) {
            return "error: " + e.getMessage();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] bytes(String s, int... tail) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        for (int t : tail) {
            b.write(t);
        }
        return b.toByteArray();
    }

    @ParameterizedTest(name = "{0} bytes per read")
    @ValueSource(ints = {1, 2, 3, 7, 1 << 20})
    void textComesOutAsWrittenWhateverTheChunking(int chunk) {
        StringBuilder s = new StringBuilder("rdmasim-trace 1\r\n");
        for (int i = 0; i < 30_000; i++) {
            s.append("é😀x\n");
        }
        String text = s.toString();
        assertThat(drain(text.getBytes(StandardCharsets.UTF_8), chunk, 4096)).isEqualTo(text);
        assertThat(drain(new byte[0], chunk, 16)).isEmpty();
        assertThat(drain(bytes("a"), chunk, 16)).isEqualTo("a");
    }

    @ParameterizedTest(name = "{0} bytes per read")
    @ValueSource(ints = {1, 2, 4096})
    void badBytesAreReportedWhereTheyStart(int chunk) {
        // Lines end with CRLF, CR and LF; the emoji is one column (two UTF-16 units).
        assertThat(drain(bytes("a\r\nb\rc\n\uD83D\uDE00x", 0xFF, 'y'), chunk, 64))
                .isEqualTo("error: t.trace:4:3: bytes that are not UTF-8 (FF): a trace is UTF-8 text");
        assertThat(drain(bytes("ab", 0xE2, 0x82), chunk, 64))
                .isEqualTo("error: t.trace:1:3: bytes that are not UTF-8 (E2 82): a trace is UTF-8 text");
        assertThat(drain(bytes("\n\n", 0xC3, 0x28), chunk, 64))
                .isEqualTo("error: t.trace:3:1: bytes that are not UTF-8 (C3): a trace is UTF-8 text");
    }

    @Test
    void textBeforeBadBytesIsDeliveredFirst() throws IOException {
        try (Utf8Input in = new Utf8Input(new ByteArrayInputStream(bytes("abc", 0xFF)), "t.trace")) {
            char[] buf = new char[16];
            assertThat(in.read(buf, 2, 10)).isEqualTo(3);
            assertThat(new String(buf, 2, 3)).isEqualTo("abc");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> in.read(buf, 0, 16)).isInstanceOf(TraceError.class)
                    .hasMessage("t.trace:1:4: bytes that are not UTF-8 (FF): a trace is UTF-8 text");
        }
    }

    @ParameterizedTest(name = "{0} bytes per read")
    @ValueSource(ints = {1, 4096})
    void byteOrderMarksAreRefusedAndOnlyWholeMarksAreMarks(int chunk) {
        assertThat(drain(bytes("", 0xEF, 0xBB, 0xBF, 'a'), chunk, 64)).isEqualTo("error: t.trace:1:1: the file starts with a"
                + " UTF-8 byte-order mark (bytes EF BB BF), which a trace may not have: save it as UTF-8 without a BOM");
        assertThat(drain(bytes("", 0xFF, 0xFE, 'a', 0), chunk, 64)).isEqualTo("error: t.trace:1:1: the file starts with"
                + " a UTF-16 byte-order mark (bytes FF FE): a trace is UTF-8 text, save it as UTF-8");
        assertThat(drain(bytes("", 0xFE, 0xFF, 0, 'a'), chunk, 64)).isEqualTo("error: t.trace:1:1: the file starts with"
                + " a UTF-16 byte-order mark (bytes FE FF): a trace is UTF-8 text, save it as UTF-8");
        // Two bytes of the UTF-8 mark are no mark, just a cut-off sequence; FF or FE alone are bad bytes.
        assertThat(drain(bytes("", 0xEF, 0xBB), chunk, 64))
                .isEqualTo("error: t.trace:1:1: bytes that are not UTF-8 (EF BB): a trace is UTF-8 text");
        assertThat(drain(bytes("", 0xEF, 0xBB, 'a'), chunk, 64))
                .isEqualTo("error: t.trace:1:1: bytes that are not UTF-8 (EF BB): a trace is UTF-8 text");
        assertThat(drain(bytes("", 0xFF, 'a'), chunk, 64))
                .isEqualTo("error: t.trace:1:1: bytes that are not UTF-8 (FF): a trace is UTF-8 text");
        assertThat(drain(bytes("", 0xFE), chunk, 64))
                .isEqualTo("error: t.trace:1:1: bytes that are not UTF-8 (FE): a trace is UTF-8 text");
        assertThat(drain(bytes("", 0xFF, 0xFF), chunk, 64))
                .isEqualTo("error: t.trace:1:1: bytes that are not UTF-8 (FF): a trace is UTF-8 text");
        assertThat(drain(bytes("ab"), chunk, 64)).isEqualTo("ab");
    }

    @Test
    void closingClosesTheStream() throws IOException {
        boolean[] closed = {false};
        InputStream s = new ByteArrayInputStream(new byte[0]) {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        new Utf8Input(s, "t.trace").close();
        assertThat(closed[0]).isTrue();
    }
}
