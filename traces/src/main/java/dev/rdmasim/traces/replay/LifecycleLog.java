package dev.rdmasim.traces.replay;

import dev.rdmasim.adapter.nic.Stage;
import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code lifecycle.csv}: one row per initiator request with the simulated time of each stage, from its post
 * to the poll of the completion that retired it, and one row (op {@code receive}) per receive that a SEND or
 * an RDMA WRITE with immediate consumed successfully: its post, the placement of the message's last byte, its
 * CQE and its poll, the other stages empty; and, when asked, {@code timeline.json}: the same stages as
 * Chrome Trace Event slices (one track per block, one slice per request stage), which Perfetto opens.
 *
 * <p>Requests are kept per QP in posting order only until the completion that retires them is taken
 * (unsignaled ones go with the next signaled one), so memory stays bounded by the queue depths.
 */
final class LifecycleLog implements AutoCloseable {
    static final String HEADER = "host,qp,request_context,op,posted_ps,doorbell_ps,wqe_fetched_ps,payload_read_ps,"
            + "first_packet_ps,last_packet_ps,remote_placed_ps,acked_ps,cqe_written_ps,polled_ps";
    /** The adapter stages in column order, and the block that acts in each (the timeline's tracks). */
    private static final Stage[] ADAPTER_STAGES = {Stage.DOORBELL, Stage.WQE_FETCHED, Stage.PAYLOAD_READ,
        Stage.FIRST_PACKET, Stage.LAST_PACKET, Stage.REMOTE_PLACED, Stage.ACKED, Stage.CQE_WRITTEN};
    private static final String[] SLICE_TRACK = {"host CPU (post, doorbell MMIO)", "doorbell + WQE fetch",
        "DMA read (payload)", "packetizer", "wire (transmit)", "peer receive + DMA write", "ACK return",
        "CQE writer", "host CPU (poll)"};
    private static final String[] SLICE_NAME = {"post", "fetch WQE", "read payload", "build first packet",
        "send packets", "place at peer", "wait for ACK", "write CQE", "poll"};

    /** One request between its post and the poll that retires it. */
    private static final class Row {
        final Replay.Request request;
        final int wqe;
        final long[] stamps = new long[Stage.values().length];
        boolean retired;

        Row(Replay.Request request, int wqe, long postedPs) {
            this.request = request;
            this.wqe = wqe;
            Arrays.fill(stamps, Stage.NOT_REACHED);
            stamps[Stage.POSTED.ordinal()] = postedPs;
        }
    }

    private java.util.function.Consumer<Replay.RequestStages> listener;
    private final OutputStream csv;
    private final CsvLine line = new CsvLine();
    private final BufferedWriter timeline;
    private boolean firstSlice = true;
    private long sliceIds;
    private boolean closed;
    private final Map<Long, ArrayDeque<Row>> byQp = new HashMap<>();
    private final Map<Replay.Request, Long> qpOf = new HashMap<>();
    /** Receives per QP in posting order (the adapter consumes them in that order), until consumed and polled. */
    private final Map<Long, ArrayDeque<Row>> receivesByQp = new HashMap<>();
    private final Map<Replay.Request, Long> receiveQpOf = new HashMap<>();
    /** Receives posted per QP: the next one's index in the receive queue (16 bits, from 0 for a new QP). */
    private final Map<Long, int[]> receivesPosted = new HashMap<>();

    LifecycleLog(Path csvFile, Path timelineFile) throws IOException {
        csv = csvFile == null ? OutputStream.nullOutputStream()
                : new BufferedOutputStream(Files.newOutputStream(csvFile), 1 << 16);
        csv.write((HEADER + '\n').getBytes(StandardCharsets.UTF_8));
        if (timelineFile != null) {
            timeline = Files.newBufferedWriter(timelineFile, StandardCharsets.UTF_8);
            timeline.write("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
            for (int host = 0; host < 2; host++) {
                for (int t = 0; t < SLICE_TRACK.length; t++) {
                    meta(host, t);
                }
                processName(host);
            }
        } else {
            timeline = null;
        }
    }

    /** Hears every row as it is written (null: nobody). */
    void setListener(java.util.function.Consumer<Replay.RequestStages> l) {
        listener = l;
    }

    private static long key(int host, int qpn) {
        return (long) host << 32 | qpn;
    }

    /** An initiator request was accepted by the provider: its WQE is number {@code wqe} of QP {@code qpn}. */
    void posted(int host, int qpn, int wqe, Replay.Request request, long nowPs) {
        long k = key(host, qpn);
        byQp.computeIfAbsent(k, x -> new ArrayDeque<>()).add(new Row(request, wqe, nowPs));
        qpOf.put(request, k);
    }

    /** A receive was accepted by the provider on QP {@code qpn}. */
    void postedReceive(int host, int qpn, Replay.Request request, long nowPs) {
        long k = key(host, qpn);
        int[] n = receivesPosted.computeIfAbsent(k, x -> new int[1]);
        receivesByQp.computeIfAbsent(k, x -> new ArrayDeque<>()).add(new Row(request, n[0] & 0xFFFF, nowPs));
        n[0]++;
        receiveQpOf.put(request, k);
    }

    /** The adapter wrote the CQE of receive WQE {@code wqe} of QP {@code qpn}: its data placed, its CQE written. */
    void receiveRetired(int host, int qpn, int wqe, long[] stamps) {
        ArrayDeque<Row> rows = receivesByQp.get(key(host, qpn));
        if (rows == null) {
            return;
        }
        for (Row r : rows) {
            if (!r.retired && r.wqe == wqe) {
                r.stamps[Stage.REMOTE_PLACED.ordinal()] = stamps[Stage.REMOTE_PLACED.ordinal()];
                r.stamps[Stage.CQE_WRITTEN.ordinal()] = stamps[Stage.CQE_WRITTEN.ordinal()];
                r.retired = true;
                break;
            }
        }
        flushReceives(host, qpn, rows);
    }

    /**
     * The consumer took a receive's completion: a successful one is written once the adapter has reported it (the
     * report may come just after, from the same CQE write); one completed with an error consumed no message and
     * gets no row.
     */
    private void receivePolled(Replay.Request request, long nowPs, boolean success) {
        Long k = receiveQpOf.remove(request);
        if (k == null) {
            return;
        }
        ArrayDeque<Row> rows = receivesByQp.get(k);
        for (java.util.Iterator<Row> it = rows.iterator(); it.hasNext();) {
            Row r = it.next();
            if (r.request == request) {
                if (success) {
                    r.stamps[Stage.POLLED.ordinal()] = nowPs;
                } else {
                    it.remove();
                }
                break;
            }
        }
        flushReceives((int) (k >>> 32), (int) (long) k, rows);
    }

    /** Writes the receives at the head of a QP's list that are both reported by the adapter and polled. */
    private void flushReceives(int host, int qpn, ArrayDeque<Row> rows) {
        while (!rows.isEmpty() && rows.peek().retired && rows.peek().stamps[Stage.POLLED.ordinal()] != Stage.NOT_REACHED) {
            write(host, qpn, rows.poll());
        }
    }

    /** The adapter retired WQE {@code wqe} of QP {@code qpn} with these stage times. */
    void retired(int host, int qpn, int wqe, long[] stamps) {
        ArrayDeque<Row> rows = byQp.get(key(host, qpn));
        if (rows == null) {
            return;
        }
        for (Row r : rows) {
            if (!r.retired && r.wqe == wqe) {
                for (Stage s : ADAPTER_STAGES) {
                    r.stamps[s.ordinal()] = stamps[s.ordinal()];
                }
                r.retired = true;
                break;
            }
        }
        flush(host, qpn, rows);
    }

    /**
     * The consumer took the completion of {@code request}: it and the unsignaled ones posted before it are
     * done on the host side (the adapter may report their retirement just after, from the same CQE write).
     */
    void polled(Replay.Request request, long nowPs, boolean success) {
        Long k = qpOf.remove(request);
        if (k == null) {
            receivePolled(request, nowPs, success);
            return;
        }
        ArrayDeque<Row> rows = byQp.get(k);
        for (Row r : rows) {
            if (r.stamps[Stage.POLLED.ordinal()] == Stage.NOT_REACHED) {
                r.stamps[Stage.POLLED.ordinal()] = nowPs;
            }
            if (r.request == request) {
                break;
            }
        }
        flush((int) (k >>> 32), (int) (long) k, rows);
    }

    /** Writes the rows at the head of a QP's list that are both retired by the adapter and polled. */
    private void flush(int host, int qpn, ArrayDeque<Row> rows) {
        while (!rows.isEmpty() && rows.peek().retired && rows.peek().stamps[Stage.POLLED.ordinal()] != Stage.NOT_REACHED) {
            Row r = rows.poll();
            qpOf.remove(r.request);
            write(host, qpn, r);
        }
    }

    private void write(int host, int qpn, Row r) {
        try {
            line.start().text(host == 0 ? "A" : "B").comma().number(qpn).comma().text(r.request.ctx).comma()
                    .text(r.request.op);
            for (int s = 0; s < r.stamps.length; s++) {
                line.comma();
                if (r.stamps[s] != Stage.NOT_REACHED) {
                    line.number(r.stamps[s]);
                }
            }
            line.writeTo(csv);
            if (listener != null) {
                Replay.Request q = r.request;
                listener.accept(new Replay.RequestStages(q.seq, host, q.qp, q.ctx, q.op, q.bytes, q.flags, r.stamps.clone()));
            }
            if (timeline != null && !r.request.op.equals("receive")) { // the timeline shows initiator requests
                slices(host, r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * One slice per stage the request went through, from the previous reached stage to this one: an async
     * begin/end pair (requests overlap in a block, so slices may too), named after the block that acts.
     */
    private void slices(int host, Row r) throws IOException {
        Stage[] all = Stage.values();
        long prev = r.stamps[Stage.POSTED.ordinal()];
        long id = ++sliceIds;
        for (int i = 1; i < all.length; i++) {
            long t = r.stamps[all[i].ordinal()];
            if (t == Stage.NOT_REACHED || t < prev) {
                continue;
            }
            int track = i - 1;
            String common = "\"name\":\"" + SLICE_NAME[track] + "\",\"cat\":\"" + SLICE_TRACK[track] + "\",\"id\":" + id
                    + ",\"pid\":" + host + ",\"tid\":" + track;
            separator();
            timeline.write("{" + common + ",\"ph\":\"b\",\"ts\":" + micros(prev) + ",\"args\":{\"request\":\""
                    + json(r.request.ctx) + "\",\"op\":\"" + r.request.op + "\",\"stage\":\"" + all[i] + "\"}}");
            separator();
            timeline.write("{" + common + ",\"ph\":\"e\",\"ts\":" + micros(t) + "}");
            prev = t;
        }
    }

    private void separator() throws IOException {
        timeline.write(firstSlice ? "" : ",\n");
        firstSlice = false;
    }

    private void meta(int host, int track) throws IOException {
        separator();
        timeline.write("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + host + ",\"tid\":" + track
                + ",\"args\":{\"name\":\"" + SLICE_TRACK[track] + "\"}}");
    }

    private void processName(int host) throws IOException {
        separator();
        timeline.write("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + host + ",\"args\":{\"name\":\"host "
                + (host == 0 ? "A" : "B") + " and its adapter\"}}");
    }

    /** Picoseconds as microseconds with full precision (the Trace Event format's unit). */
    private static String micros(long ps) {
        return java.math.BigDecimal.valueOf(ps, 6).stripTrailingZeros().toPlainString();
    }

    private static String json(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format(java.util.Locale.US, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * Writes the requests never retired by a taken completion (the trace ended first), and the receives the adapter
     * reported as consumed but nobody polled, then closes. Receives never consumed get no row.
     */
    void finish() throws IOException {
        for (var e : new java.util.TreeMap<>(byQp).entrySet()) {
            for (Row r : e.getValue()) {
                write((int) (e.getKey() >>> 32), (int) (long) e.getKey(), r);
            }
        }
        byQp.clear();
        for (var e : new java.util.TreeMap<>(receivesByQp).entrySet()) {
            for (Row r : e.getValue()) {
                if (r.retired) {
                    write((int) (e.getKey() >>> 32), (int) (long) e.getKey(), r);
                }
            }
        }
        receivesByQp.clear();
        close();
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        csv.close();
        if (timeline != null) {
            timeline.write("\n]}\n");
            timeline.close();
        }
    }
}
