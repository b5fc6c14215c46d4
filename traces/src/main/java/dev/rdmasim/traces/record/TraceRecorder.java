package dev.rdmasim.traces.record;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.ndk.NdkAdapter;
import dev.rdmasim.ndk.NdkAddress;
import dev.rdmasim.ndk.NdkConnector;
import dev.rdmasim.ndk.NdkConstants;
import dev.rdmasim.ndk.NdkCq;
import dev.rdmasim.ndk.NdkMr;
import dev.rdmasim.ndk.NdkObject;
import dev.rdmasim.ndk.NdkOpFlags;
import dev.rdmasim.ndk.NdkOperationType;
import dev.rdmasim.ndk.NdkPd;
import dev.rdmasim.ndk.NdkQp;
import dev.rdmasim.ndk.NdkRecorder;
import dev.rdmasim.ndk.NdkResult;
import dev.rdmasim.ndk.NdkSge;
import dev.rdmasim.ndk.NtStatus;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes the NDK calls of a run as a version-1 trace (docs/trace-format.md, "Recording"). Declare the hosts
 * first ({@link #host}, which also sets this recorder on the adapter); every creation then becomes a
 * declaration line named {@code HOST.cqN}, {@code HOST.pdN}, {@code HOST.mrN}, {@code HOST.qpN} (numbered per
 * host and kind in creation order), and every call a line with its absolute time {@code @Tps}.
 *
 * <p>What the recorder cannot see, its user tells it: how a buffer was filled before it was registered
 * ({@link #fill}; unknown contents are recorded as {@code fill=zero} with a comment), which CQs a consumer polls
 * automatically ({@link #pollAuto}), and, when the user records its polls as trace lines itself
 * ({@link #recordPolls(boolean) recordPolls(false)}, {@link #pollLine}, {@link #waitLine}), those lines.
 *
 * <p>The file is written under a temporary name and renamed by {@link #close()}.
 */
public final class TraceRecorder implements NdkRecorder, Closeable {
    private static final String[] CALL_FLAGS = {"SILENT_SUCCESS", "READ_FENCE", "SEND_AND_SOLICIT_EVENT", "INLINE",
        "RDMA_READ_LOCAL_INVALIDATE", "DEFER"};
    private static final int[] CALL_FLAG_BITS = {NdkOpFlags.NDK_OP_FLAG_SILENT_SUCCESS, NdkOpFlags.NDK_OP_FLAG_READ_FENCE,
        NdkOpFlags.NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, NdkOpFlags.NDK_OP_FLAG_INLINE,
        NdkOpFlags.NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, NdkOpFlags.NDK_OP_FLAG_DEFER};
    private static final String[] MR_FLAGS = {"LOCAL_WRITE", "REMOTE_READ", "REMOTE_WRITE", "RDMA_READ_SINK"};
    private static final int[] MR_FLAG_BITS = {NdkConstants.NDK_MR_FLAG_ALLOW_LOCAL_WRITE,
        NdkConstants.NDK_MR_FLAG_ALLOW_REMOTE_READ, NdkConstants.NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
        NdkConstants.NDK_MR_FLAG_RDMA_READ_SINK};

    /** A registered region: its name and where its buffer starts. */
    private record Region(String name, long address) {
    }

    /** A connect whose peer has not accepted yet. */
    private record Connecting(String qp, int port, String args) {
    }

    private final Path file;
    private final Path partial;
    private final Writer out;
    private final List<NdkAdapter> adapters = new ArrayList<>();
    private final List<String> hostNames = new ArrayList<>();
    private final Map<Object, String> names = new IdentityHashMap<>();
    private final Map<String, Integer> counters = new HashMap<>();
    /** Registered regions by host index and token (local and remote tokens both). */
    private final List<Map<Integer, Region>> localTokens = new ArrayList<>();
    private final List<Map<Integer, Region>> remoteTokens = new ArrayList<>();
    /** Fills announced by {@link #fill}, by host index and buffer address. */
    private final List<Map<Long, String>> fills = new ArrayList<>();
    private final List<Connecting> connecting = new ArrayList<>();
    private final Set<NdkCq> autoPolled = Collections.newSetFromMap(new IdentityHashMap<>());
    private boolean recordPolls = true;
    private String nextName;
    private int nextExpect;
    private boolean expectPending;
    private boolean autoPoll;
    private long lines;

    /** Starts a trace at {@code file} (written as {@code file.partial} until {@link #close()}). */
    public TraceRecorder(Path file, String comment) throws IOException {
        this.file = file;
        this.partial = file.resolveSibling(file.getFileName() + ".partial");
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        out = Files.newBufferedWriter(partial, StandardCharsets.UTF_8);
        write("rdmasim-trace 1");
        if (comment != null) {
            for (String c : comment.split("\n")) {
                write("# " + c);
            }
        }
    }

    /**
     * Declares the next host (at most two, before any other line) on {@code adapter}: a {@code host} line with the
     * profile's name (when it names a built-in profile, else {@code default}) and, as {@code set=}, the values of
     * {@code profile} that differ from that profile's. Sets this recorder on the adapter.
     */
    public void host(NdkAdapter adapter, String name, Profile profile) {
        if (adapters.size() == 2) {
            throw new IllegalStateException("a trace has at most two hosts");
        }
        String base = "default";
        Profile reference;
        try {
            reference = Profiles.resolve(profile.name());
            base = profile.name();
        } catch (RuntimeException e) {
            reference = Profiles.resolve("default");
        }
        StringBuilder b = new StringBuilder("host ").append(name).append(" profile=").append(base);
        Map<String, String> diff = profile.differencesFrom(reference);
        if (!diff.isEmpty()) {
            b.append(" set=");
            String sep = "";
            for (Map.Entry<String, String> e : diff.entrySet()) {
                b.append(sep).append(e.getKey()).append('=').append(e.getValue().replace(' ', '_'));
                sep = ",";
            }
        }
        write(b.toString());
        adapters.add(adapter);
        hostNames.add(name);
        localTokens.add(new HashMap<>());
        remoteTokens.add(new HashMap<>());
        fills.add(new HashMap<>());
        adapter.setRecorder(this);
    }

    /**
     * The buffer at {@code address} of {@code adapter}'s host was filled as {@code spec} ({@code zero},
     * {@code byte:V} or {@code pattern:SEED}, the trace format's {@code fill=} values) before it was registered.
     */
    public void fill(NdkAdapter adapter, long address, String spec) {
        fills.get(host(adapter)).put(address, spec);
    }

    /** CQs created from now on are declared {@code poll=auto} (true) or {@code poll=manual} (false, the start). */
    public void pollAuto(boolean auto) {
        autoPoll = auto;
    }

    /**
     * Whether each {@code NdkGetCqResults} on a manually polled CQ becomes a {@code poll CQ max=N} line (true, the
     * start). A user that writes its own {@link #pollLine}/{@link #waitLine} turns this off.
     */
    public void recordPolls(boolean on) {
        recordPolls = on;
    }

    /** Writes {@code poll CQ max=N} at {@code ps}. */
    public void pollLine(long ps, NdkCq cq, int max) {
        call(ps, "poll " + name(cq) + " max=" + max);
    }

    /** Writes {@code wait CQ ctx=C} (ctx non-null) or {@code wait CQ count=N} at {@code ps}. */
    public void waitLine(long ps, NdkCq cq, Object ctx, long count) {
        String c = ctx == null ? null : text(ctx);
        call(ps, "wait " + name(cq) + (c != null ? " ctx=" + c : " count=" + count));
    }

    /**
     * The next object declared is named {@code name} (HOST.NAME, on its host) instead of a generated name: a user
     * that knows its objects' names (a replay) keeps them, so its recording replays with the same names.
     */
    public void nameNext(String name) {
        nextName = name;
    }

    /**
     * The next posted request is recorded with {@code expect=STATUS} (a replay passes on its line's expectation, so a
     * recorded remote range past its region's end, which only an expecting line may have, is checked the same).
     */
    public void expectNext(int status) {
        nextExpect = status;
        expectPending = true;
    }

    /** The name an NDK object is recorded under, or null for one the recorder has not seen created. */
    public String nameOf(Object ndkObject) {
        return names.get(ndkObject);
    }

    /** Lines written so far. */
    public long lines() {
        return lines;
    }

    /**
     * The text a request context is recorded as: its {@code toString()}, with every character outside letters,
     * digits and {@code _ - . : + / @} replaced by {@code _}; null for null or an empty text (no {@code ctx=}).
     */
    public static String text(Object ctx) {
        if (ctx == null) {
            return null;
        }
        String s = ctx.toString();
        if (s.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c < 128 && (Character.isLetterOrDigit(c) || "_-.:+/@".indexOf(c) >= 0);
            b.append(ok ? c : '_');
        }
        return b.toString();
    }

    // ------------------------------------------------------------------ NdkRecorder

    @Override
    public void cqCreated(long ps, NdkCq cq, long depth) {
        write("cq " + declare(cq, "cq") + " depth=" + depth + " poll=" + (autoPoll ? "auto" : "manual"));
        if (autoPoll) {
            autoPolled.add(cq);
        }
    }

    @Override
    public void pdCreated(long ps, NdkPd pd) {
        write("pd " + declare(pd, "pd"));
    }

    @Override
    public void mrRegistered(long ps, NdkPd pd, NdkMr mr, long address, long length, int flags) {
        int h = host(mr.adapter());
        String name = declare(mr, "mr");
        Region r = new Region(name, address);
        localTokens.get(h).put(mr.getLocalToken(), r);
        remoteTokens.get(h).put(mr.getRemoteToken(), r);
        String fill = fills.get(h).get(address);
        if (fill == null) {
            write("# " + name + ": its contents before registration are unknown to the recorder (recorded as zero)");
            fill = "zero";
        }
        write("mr " + name + " pd=" + name(pd) + " size=" + length
                + (flags != 0 ? " access=" + flags(flags, MR_FLAGS, MR_FLAG_BITS) : "") + " fill=" + fill);
    }

    @Override
    public void qpCreated(long ps, NdkPd pd, NdkQp qp, NdkCq receiveCq, NdkCq initiatorCq, Object qpContext,
            long receiveDepth, long initiatorDepth, long receiveSge, long initiatorSge, long inlineSize) {
        String name = declare(qp, "qp");
        String ctx = text(qpContext);
        write("qp " + name + " pd=" + name(pd) + " rcq=" + name(receiveCq) + " icq=" + name(initiatorCq) + " rq="
                + receiveDepth + " iq=" + initiatorDepth + " rsge=" + receiveSge + " isge=" + initiatorSge + " inline="
                + inlineSize + (ctx != null ? " context=" + ctx : ""));
    }

    @Override
    public void connecting(long ps, NdkConnector connector, NdkQp qp, NdkAddress dest, long inboundReadLimit,
            long outboundReadLimit, byte[] privateData, int privateDataLength) {
        names.put(connector, name(qp));
        connecting.add(new Connecting(name(qp), dest.port(), " in=" + inboundReadLimit + " out=" + outboundReadLimit
                + hex(" data=", privateData, privateDataLength)));
    }

    @Override
    public void accepting(long ps, NdkConnector connector, NdkQp qp, long inboundReadLimit, long outboundReadLimit,
            byte[] privateData, int privateDataLength) {
        names.put(connector, name(qp));
        int port = connector.getLocalAddress().port();
        for (int i = 0; i < connecting.size(); i++) {
            Connecting c = connecting.get(i);
            if (c.port == port) {
                connecting.remove(i);
                write("connect " + c.qp + " " + name(qp) + " port=" + port + c.args + " peer_in=" + inboundReadLimit
                        + " peer_out=" + outboundReadLimit + hex(" peer_data=", privateData, privateDataLength));
                return;
            }
        }
        throw new IllegalStateException("cannot record an accept on port " + port + " without a recorded connect to it");
    }

    @Override
    public void post(long ps, NdkQp qp, int type, Object requestContext, NdkSge[] sgl, int nSge, long remoteAddress,
            int remoteToken, int flags) {
        int h = host(qp.adapter());
        String verb = switch (type) {
            case NdkOperationType.NdkOperationTypeSend -> "send";
            case NdkOperationType.NdkOperationTypeWrite -> "write";
            case NdkOperationType.NdkOperationTypeRead -> "read";
            default -> "receive";
        };
        StringBuilder b = new StringBuilder(verb).append(' ').append(name(qp));
        // The format wants a ctx on initiator calls: a null context (perf's) is recorded as '-'.
        String ctx = requestContext == null ? "-" : text(requestContext);
        if (ctx != null) {
            b.append(" ctx=").append(ctx);
        }
        for (int i = 0; i < nSge; i++) {
            NdkSge s = sgl[i];
            Region r = localTokens.get(h).get(s.memoryRegionToken());
            if (r == null) {
                throw new IllegalStateException("cannot record an SGE with token " + s.memoryRegionToken()
                        + ": no recorded region of host " + hostNames.get(h) + " has it");
            }
            b.append(i == 0 ? " sge=" : ",").append(r.name).append('+').append(s.virtualAddress() - r.address)
                    .append(':').append(s.length());
        }
        if (type == NdkOperationType.NdkOperationTypeWrite || type == NdkOperationType.NdkOperationTypeRead) {
            Region r = remoteTokens.get(1 - h).get(remoteToken);
            if (r == null) {
                throw new IllegalStateException("cannot record a remote token " + remoteToken
                        + ": no recorded region of the peer has it");
            }
            b.append(" remote=").append(r.name).append('+').append(remoteAddress - r.address);
        }
        if (flags != 0) {
            b.append(" flags=").append(flags(flags, CALL_FLAGS, CALL_FLAG_BITS));
        }
        if (expectPending) {
            b.append(" expect=").append(NtStatus.name(nextExpect).replaceFirst("^STATUS_", ""));
            expectPending = false;
        }
        call(ps, b.toString());
    }

    @Override
    public void arm(long ps, NdkCq cq, int triggerType) {
        String type = switch (triggerType) {
            case NdkConstants.NDK_CQ_NOTIFY_ANY -> "ANY";
            case NdkConstants.NDK_CQ_NOTIFY_SOLICITED -> "SOLICITED";
            case NdkConstants.NDK_CQ_NOTIFY_ERRORS -> "ERRORS";
            default -> throw new IllegalStateException("cannot record an arm of type " + triggerType);
        };
        call(ps, "arm " + name(cq) + " " + type);
    }

    @Override
    public void polled(long ps, NdkCq cq, int requested, NdkResult[] results, int got) {
        if (recordPolls && !autoPolled.contains(cq)) {
            // What the poll took, as a comment: a reader (or a test) sees which completions the replay must take here.
            StringBuilder b = new StringBuilder("poll ").append(name(cq)).append(" max=").append(requested);
            if (got > 0) {
                b.append("  # took ").append(got).append(':');
                for (int i = 0; i < got; i++) {
                    String ctx = text(results[i].requestContext);
                    b.append(' ').append(ctx == null ? "-" : ctx).append('/')
                            .append(NtStatus.name(results[i].status).replace("STATUS_", ""));
                }
            }
            call(ps, b.toString());
        }
    }

    @Override
    public void flush(long ps, NdkQp qp) {
        call(ps, "flush " + name(qp));
    }

    @Override
    public void moderate(long ps, NdkCq cq, long intervalUs, long count) {
        call(ps, "moderate " + name(cq) + " interval=" + intervalUs + "us count=" + count);
    }

    @Override
    public void resize(long ps, NdkCq cq, long depth) {
        call(ps, "resize " + name(cq) + " depth=" + depth);
    }

    @Override
    public void disconnect(long ps, NdkConnector connector) {
        call(ps, "disconnect " + name(connector));
    }

    @Override
    public void close(long ps, NdkObject object) {
        // Connectors and listeners are not objects of the trace: 'close QP' closes its connector too.
        String name = names.get(object);
        if (name != null && !(object instanceof NdkConnector)) {
            call(ps, "close " + name);
        }
    }

    /** Finishes the trace and moves it to its name. */
    @Override
    public void close() throws IOException {
        for (NdkAdapter a : adapters) {
            if (a.recorder() == this) {
                a.setRecorder(null);
            }
        }
        out.close();
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Abandons the trace (a failed run): nothing is left under its name. */
    public void abandon() {
        for (NdkAdapter a : adapters) {
            if (a.recorder() == this) {
                a.setRecorder(null);
            }
        }
        try {
            out.close();
            Files.deleteIfExists(partial);
        } catch (IOException e) {
            // The run already failed; its error is the one reported.
        }
    }

    // ------------------------------------------------------------------ helpers

    private int host(NdkAdapter a) {
        for (int i = 0; i < adapters.size(); i++) {
            if (adapters.get(i) == a) {
                return i;
            }
        }
        throw new IllegalStateException("an NDK call on an adapter that is not a recorded host");
    }

    private String declare(NdkObject o, String kind) {
        String host = hostNames.get(host(o.adapter()));
        if (nextName != null && nextName.startsWith(host + ".")) {
            String given = nextName;
            nextName = null;
            names.put(o, given);
            return given;
        }
        nextName = null;
        String key = host + "." + kind;
        int n = counters.merge(key, 1, Integer::sum) - 1;
        String name = key + n;
        names.put(o, name);
        return name;
    }

    private String name(Object o) {
        String n = names.get(o);
        if (n == null) {
            throw new IllegalStateException("cannot record a call on an object whose creation was not recorded: " + o);
        }
        return n;
    }

    private static String flags(int flags, String[] names, int[] bits) {
        StringBuilder b = new StringBuilder();
        int left = flags;
        for (int i = 0; i < names.length; i++) {
            // NDK_MR_FLAG_ALLOW_REMOTE_WRITE includes the local-write bit: a name holds when all its bits are set.
            if ((flags & bits[i]) == bits[i]) {
                b.append(b.length() == 0 ? "" : "|").append(names[i]);
                left &= ~bits[i];
            }
        }
        if (left != 0) {
            throw new IllegalStateException("cannot record flags 0x" + Integer.toHexString(left));
        }
        return b.toString();
    }

    private static String hex(String key, byte[] data, int length) {
        if (data == null || length <= 0) {
            return "";
        }
        StringBuilder b = new StringBuilder(key);
        for (int i = 0; i < length; i++) {
            b.append(Character.forDigit((data[i] >> 4) & 0xF, 16)).append(Character.forDigit(data[i] & 0xF, 16));
        }
        return b.toString();
    }

    private void call(long ps, String text) {
        write("@" + ps + "ps " + text);
    }

    private void write(String line) {
        try {
            out.write(line);
            out.write('\n');
            lines++;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the recorded trace " + partial, e);
        }
    }
}
