package dev.rdmasim.adapter.wire;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Writes frames to a classic pcap stream with nanosecond timestamps (magic 0xa1b23c4d, version 2.4,
 * LINKTYPE_ETHERNET), little-endian, so the same run always yields the same bytes. Timestamps are the
 * simulated time in ns (picoseconds truncated), counted from the Unix epoch, i.e. simulated time 0 is
 * 1970-01-01 00:00:00. Frames are written without FCS. Attach it to a link with
 * {@link EthernetLink#addTap}; I/O errors surface as {@link UncheckedIOException}.
 */
public final class PcapWriter implements FrameTap, Closeable {
    public static final int MAGIC_NANOSECONDS = 0xa1b23c4d;
    public static final int LINKTYPE_ETHERNET = 1;
    public static final int SNAPLEN = 65_535;

    private final OutputStream out;
    private final byte[] record = new byte[16];
    private long frames;
    private long lastNs;
    private boolean closed;

    /** Starts a capture on {@code out} (buffered here), writing the file header at once. */
    public PcapWriter(OutputStream out) {
        this.out = new BufferedOutputStream(Objects.requireNonNull(out, "out"), 1 << 16);
        byte[] h = new byte[24];
        le32(h, 0, MAGIC_NANOSECONDS);
        le16(h, 4, 2);
        le16(h, 6, 4);
        // thiszone and sigfigs stay 0
        le32(h, 16, SNAPLEN);
        le32(h, 20, LINKTYPE_ETHERNET);
        try {
            this.out.write(h);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the pcap header", e);
        }
    }

    /** Creates (or truncates) {@code file} and starts a capture in it. */
    public static PcapWriter open(Path file) throws IOException {
        return new PcapWriter(Files.newOutputStream(file));
    }

    @Override
    public void frame(long timePs, byte[] data, int length) {
        write(timePs, data, 0, length);
    }

    /** Appends one frame of {@code length} bytes from {@code data[off]} captured at {@code timePs}. */
    public void write(long timePs, byte[] data, int off, int length) {
        if (closed) {
            throw new IllegalStateException("pcap writer is closed");
        }
        if (timePs < 0) {
            throw new IllegalArgumentException("timestamp must be >= 0 ps, got " + timePs);
        }
        if (length < 0 || length > SNAPLEN) {
            throw new IllegalArgumentException("frame length must be 0.." + SNAPLEN + ", got " + length);
        }
        long ns = timePs / 1000;
        le32(record, 0, (int) (ns / 1_000_000_000L));
        le32(record, 4, (int) (ns % 1_000_000_000L));
        le32(record, 8, length);
        le32(record, 12, length);
        try {
            out.write(record);
            out.write(data, off, length);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write pcap record " + frames, e);
        }
        frames++;
        lastNs = ns;
    }

    public long framesWritten() {
        return frames;
    }

    /** Timestamp of the last frame written, in ns. */
    public long lastTimestampNs() {
        return lastNs;
    }

    /** Flushes buffered records to the underlying stream. */
    public void flush() throws IOException {
        out.flush();
    }

    /** Flushes and closes the underlying stream; further writes fail, a second close does nothing. */
    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            out.close();
        }
    }

    private static void le16(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
    }

    private static void le32(byte[] b, int off, int v) {
        le16(b, off, v);
        le16(b, off + 2, v >>> 16);
    }
}
