package dev.rdmasim.traces.replay;

import dev.rdmasim.ndk.NtStatus;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code notifications.csv}: one row per CQ notification the replay heard, in order:
 * {@code time_ps,host,cq,type,status,status_hex}. {@code type} is what the CQ was armed for when it fired
 * ({@code ANY}, {@code SOLICITED} or {@code ERRORS}); {@code status} is the callback's ({@code STATUS_SUCCESS}, or
 * {@code STATUS_BUFFER_OVERFLOW} when the CQ overran).
 */
final class NotificationLog implements AutoCloseable {
    static final String HEADER = "time_ps,host,cq,type,status,status_hex";

    private final OutputStream out;
    private final CsvLine line = new CsvLine();

    NotificationLog(Path file) throws IOException {
        out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 12);
        out.write((HEADER + '\n').getBytes(StandardCharsets.UTF_8));
    }

    void row(long timePs, String host, String cq, String type, int status) {
        try {
            line.start().number(timePs).comma().text(host).comma().text(cq).comma().text(type).comma()
                    .text(NtStatus.name(status)).comma().text(NtStatus.hex(status)).writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
