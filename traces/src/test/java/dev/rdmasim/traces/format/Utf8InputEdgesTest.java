package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The decoder's reads into the middle of a buffer, a buffer too small for one character, and bad bytes before a long rest. */
class Utf8InputEdgesTest {
    private static Utf8Input input(byte[] bytes) {
        return new Utf8Input(new ByteArrayInputStream(bytes), "t.trace");
    }

    @Test
    void readsIntoTheMiddleOfABufferCountOnlyTheCharactersRead() throws IOException {
        try (Utf8Input in = input("ab".getBytes(StandardCharsets.UTF_8))) {
            char[] buf = new char[16];
            assertThat(in.read(buf, 5, 10)).isEqualTo(2);
            assertThat(new String(buf, 5, 2)).isEqualTo("ab");
            assertThat(in.read(buf, 5, 10)).isEqualTo(-1);
            assertThat(in.read(buf, 5, 10)).isEqualTo(-1);
            assertThat(in.read(buf, 5, 0)).isZero();
        }
    }

    @Test
    void aCharacterThatNeedsTwoUnitsDoesNotFitAOneUnitRead() throws IOException {
        try (Utf8Input in = input("\uD83D\uDE00".getBytes(StandardCharsets.UTF_8))) {
            assertThatThrownBy(() -> in.read(new char[1], 0, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("no room to decode into 1 chars");
        }
    }

    @Test
    @Timeout(10)
    void badBytesFollowedByMoreThanTheBufferAreReportedAtOnce() throws IOException {
        byte[] bytes = new byte[200_000];
        Arrays.fill(bytes, (byte) 'a');
        bytes[0] = '#';
        bytes[1] = (byte) 0xFF;
        try (Utf8Input in = input(bytes)) {
            char[] buf = new char[8192];
            assertThat(in.read(buf, 0, buf.length)).isEqualTo(1);
            assertThatThrownBy(() -> in.read(buf, 0, buf.length)).isInstanceOf(TraceError.class)
                    .hasMessage("t.trace:1:2: bytes that are not UTF-8 (FF): a trace is UTF-8 text");
        }
    }
}
