package dev.rdmasim.traces.replay;

import dev.rdmasim.ndk.NtStatus;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.collections.impl.map.mutable.primitive.IntObjectHashMap;

/**
 * {@code completions.csv}: one row per completion the replay took (and per call that was refused inline),
 * in delivery order: {@code time_ps,host,qp,cq,request_context,op,status,status_hex,bytes}. Streamed to
 * the file as it goes.
 */
final class CompletionLog implements AutoCloseable {
    static final String HEADER = "time_ps,host,qp,cq,request_context,op,status,status_hex,bytes";

    private final OutputStream out;
    private final CsvLine line = new CsvLine();
    private final IntObjectHashMap<String> names = new IntObjectHashMap<>();
    private final IntObjectHashMap<String> hexes = new IntObjectHashMap<>();
    private long rows;

    /** Writes into {@code file}; null: counts the rows only. */
    CompletionLog(Path file) throws IOException {
        out = file == null ? OutputStream.nullOutputStream()
                : new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        out.write((HEADER + '\n').getBytes(StandardCharsets.UTF_8));
    }

    void row(long timePs, String host, String qp, String cq, String ctx, String op, int status, long bytes) {
        try {
            line.start().number(timePs).comma().text(host).comma().text(qp).comma().text(cq).comma().text(ctx).comma()
                    .text(op).comma().text(statusName(status)).comma().text(statusHex(status)).comma().number(bytes)
                    .writeTo(out);
            rows++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Names and hex forms of the few statuses a run sees, made once each. */
    private String statusName(int status) {
        return names.getIfAbsentPutWithKey(status, NtStatus::name);
    }

    private String statusHex(int status) {
        return hexes.getIfAbsentPutWithKey(status, NtStatus::hex);
    }

    long rows() {
        return rows;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
