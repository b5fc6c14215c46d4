package dev.rdmasim.traces.replay;

import dev.rdmasim.ndk.NtStatus;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code completions.csv}: one row per completion the replay took (and per call that was refused inline),
 * in delivery order: {@code time_ps,host,qp,cq,request_context,op,status,status_hex,bytes}. Streamed to
 * the file as it goes.
 */
final class CompletionLog implements AutoCloseable {
    static final String HEADER = "time_ps,host,qp,cq,request_context,op,status,status_hex,bytes";

    private final BufferedWriter out;
    private long rows;

    CompletionLog(Path file) throws IOException {
        out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        out.write(HEADER);
        out.write('\n');
    }

    void row(long timePs, String host, String qp, String cq, String ctx, String op, int status, long bytes) {
        try {
            out.write(Long.toString(timePs));
            out.write(',');
            field(host);
            out.write(',');
            field(qp);
            out.write(',');
            field(cq);
            out.write(',');
            field(ctx);
            out.write(',');
            out.write(op);
            out.write(',');
            out.write(NtStatus.name(status));
            out.write(',');
            out.write(NtStatus.hex(status));
            out.write(',');
            out.write(Long.toString(bytes));
            out.write('\n');
            rows++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A CSV field, quoted when it holds a comma, quote or line break. */
    private void field(String s) throws IOException {
        if (s == null) {
            return;
        }
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
            out.write(s);
            return;
        }
        out.write('"');
        out.write(s.replace("\"", "\"\""));
        out.write('"');
    }

    long rows() {
        return rows;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
