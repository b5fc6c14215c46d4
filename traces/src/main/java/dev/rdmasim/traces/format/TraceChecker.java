package dev.rdmasim.traces.format;

import dev.rdmasim.adapter.config.Parameter;
import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.ProfileException;
import dev.rdmasim.adapter.config.Profiles;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The first pass over a trace: reads it through a {@link TraceReader} (streaming, repeats expanded)
 * and checks what the syntax cannot: hosts (at most two, first), objects (declared once, on a declared
 * host, before use, of the kind the argument needs, not closed), where buffers live (a call's local
 * buffers on its QP's host, a remote region on the other host, both inside their regions), and
 * creation parameters against the host's profile ({@code ndk.*} limits). Nothing is simulated. The
 * first error is thrown as a {@link TraceError}; a clean trace gives a {@link Summary}.
 */
public final class TraceChecker {
    private static final int SUCCESS = dev.rdmasim.ndk.NtStatus.STATUS_SUCCESS;

    /** What a clean trace holds: hosts, calls (lines that run at a time), and declarations (host lines included). */
    public record Summary(int hosts, long calls, long declarations) {
    }

    /**
     * What a replay needs from the first pass: the {@link Summary}, and the CQs some {@code wait ... ctx=} line
     * waits on (the replay remembers the contexts taken from those CQs only, so that a wait finds a completion
     * taken before it started).
     */
    public record Checked(Summary summary, java.util.Set<String> waitedByContext) {
        public Checked {
            waitedByContext = java.util.Set.copyOf(waitedByContext);
        }
    }

    private final java.util.Set<String> waitedByContext = new java.util.HashSet<>();

    private final Path baseDir;
    private final List<Host> hosts = new ArrayList<>(2);
    private final Map<String, Obj> objects = new HashMap<>();
    private static final int CACHE = 64;
    private final String[] cachedNames = new String[CACHE];
    private final Obj[] cachedObjects = new Obj[CACHE];
    private boolean otherDeclarationSeen;
    /** The earliest time the last line can run at, and what each anchor holds at the earliest. */
    private long earliest;
    private final long[] anchorEarliest = new long[TimeSpec.MAX_ANCHORS];
    /** For the estimate of the host memory a run touches: regions declared, bytes touched in them, the most touched. */
    private long regionCount;
    private long touchedBytes;
    private Obj mostTouched;
    /** The heap a run may use, in bytes (the JVM's maximum unless a test says otherwise). */
    private long heapBytes = Runtime.getRuntime().maxMemory();
    private long calls;
    private long declarations;

    /** The profile of hosts that name none, and the overrides on every host: limits are checked against them. */
    private final String defaultProfile;
    private final List<String> overrides;

    private TraceChecker(Path baseDir) {
        this(baseDir, "default", List.of());
    }

    private TraceChecker(Path baseDir, String defaultProfile, List<String> overrides) {
        this.baseDir = baseDir;
        this.defaultProfile = defaultProfile;
        this.overrides = List.copyOf(overrides);
    }

    /** Checks a trace file; profile files named by {@code host} lines are relative to the trace's directory. */
    public static Summary check(Path file) throws IOException {
        return check(file, "default", List.of());
    }

    /**
     * As {@link #check(Path)}, for a run whose hosts without {@code profile=} take {@code defaultProfile} and
     * every host then {@code overrides} ({@code key=value}): the limits checked are the ones the run will have.
     */
    public static Summary check(Path file, String defaultProfile, List<String> overrides) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        try (TraceReader reader = TraceReader.open(file)) {
            return new TraceChecker(dir, defaultProfile, overrides).run(reader);
        }
    }

    /**
     * As {@link #check(Path, String, List)} for the trace {@code reader} reads (profile files relative to
     * {@code baseDir}), with what a replay needs besides the summary.
     */
    public static Checked checkForReplay(TraceReader reader, Path baseDir, String defaultProfile,
            List<String> overrides) {
        TraceChecker c = new TraceChecker(baseDir, defaultProfile, overrides);
        Summary s = c.run(reader);
        return new Checked(s, c.waitedByContext);
    }

    /** Checks a trace read from {@code in}; profile files are relative to {@code baseDir}. */
    public static Summary check(Reader in, String fileName, Path baseDir) {
        try (TraceReader reader = new TraceReader(in, fileName)) {
            return new TraceChecker(baseDir).run(reader);
        }
    }

    /**
     * The profile a {@code host} line asks for: {@code profile=} (a built-in name, or a YAML file
     * relative to {@code baseDir}; {@code default} when absent) with its {@code set=} overrides. A bad
     * profile or setting is a {@link TraceError} at the value.
     */
    public static Profile hostProfile(TraceLine host, Path baseDir) {
        return hostProfile(host, baseDir, "default");
    }

    /** As {@link #hostProfile(TraceLine, Path)}, with {@code dflt} for a host line that names no profile. */
    public static Profile hostProfile(TraceLine host, Path baseDir, String dflt) {
        if (!host.keyword().equals("host")) {
            throw new IllegalArgumentException("not a host line: " + host);
        }
        String name = host.text("profile", dflt);
        Profile profile;
        try {
            if (Profiles.names().contains(name)) {
                profile = Profiles.load(name);
            } else if (name.endsWith(".yaml") || name.endsWith(".yml") || name.contains("/") || name.contains("\\")) {
                Path p = Path.of(name);
                profile = Profiles.fromFile(p.isAbsolute() || baseDir == null ? p : baseDir.resolve(p));
            } else {
                profile = Profiles.resolve(name); // throws the registry's "unknown profile" message
            }
        } catch (ProfileException e) {
            throw new TraceError(host.position("profile"), e.getMessage());
        }
        Map<String, String> settings = host.settings("set");
        if (settings.isEmpty()) {
            return profile;
        }
        try {
            return profile.withOverrides(settings);
        } catch (ProfileException e) {
            throw new TraceError(host.position("set"), e.getMessage());
        }
    }

    /**
     * The profile a run gives the host of a {@code host} line: {@link #hostProfile(TraceLine, Path, String)}, then
     * the run's {@code key=value} overrides, as the checker checks limits against and a replay builds the host.
     */
    public static Profile hostProfile(TraceLine host, Path baseDir, String dflt, List<String> overrides) {
        Profile p = hostProfile(host, baseDir, dflt);
        return overrides.isEmpty() ? p : p.withOverrides(overrides);
    }

    private Summary run(TraceReader reader) {
        for (TraceLine line = reader.next(); line != null; line = reader.next()) {
            check(line);
        }
        checkHeap();
        return new Summary(hosts.size(), calls, declarations);
    }

    /**
     * The earliest time line {@code l} can run at: its time resolved as a replay resolves it, with every
     * earlier line taken to run at its own earliest time (a line that blocks only makes later lines later).
     * A line whose earliest time is past {@link TimeSpec#MAX_PS} is an error, so relative times that add up
     * beyond the range of a picosecond count are refused instead of wrapping.
     */
    private void time(TraceLine l) {
        TimeSpec t = l.time();
        long at;
        try {
            at = switch (t.kind()) {
                case NONE -> earliest;
                case ABSOLUTE -> t.ps();
                case RELATIVE -> Math.addExact(earliest, t.ps());
                case ANCHORED -> Math.addExact(anchorEarliest[t.anchor()], t.ps());
            };
        } catch (ArithmeticException e) {
            at = Long.MAX_VALUE;
        }
        if (at > TimeSpec.MAX_PS) {
            throw new TraceError(l.position(), "this line runs at " + (at == Long.MAX_VALUE ? "2^63" : Long.toString(at))
                    + " ps or later, past the latest time a trace may use (2^62 ps, about 53 days)");
        }
        if (at > earliest) {
            earliest = at;
        }
        if (t.setAnchor() >= 0) {
            anchorEarliest[t.setAnchor()] = earliest;
        }
    }

    private void check(TraceLine l) {
        time(l);
        if (l.isCall()) {
            calls++;
        } else {
            declarations++;
        }
        if (!l.keyword().equals("host")) {
            otherDeclarationSeen = true;
        }
        switch (l.keyword()) {
            case "host" -> host(l);
            case "cq" -> cqDepth(l, declare(l, Schema.ObjectKind.CQ).host, "depth");
            case "pd" -> declare(l, Schema.ObjectKind.PD);
            case "mr" -> mr(l);
            case "qp" -> qp(l);
            case "connect" -> connect(l);
            case "send", "receive", "write", "read" -> transfer(l);
            case "flush", "disconnect" -> use(l, 0, Schema.ObjectKind.QP);
            case "arm", "moderate" -> use(l, 0, Schema.ObjectKind.CQ);
            case "poll" -> {
                use(l, 0, Schema.ObjectKind.CQ);
                atLeastOne(l, "max");
            }
            case "wait" -> {
                use(l, 0, Schema.ObjectKind.CQ);
                if (l.has("ctx") && l.has("count")) {
                    throw new TraceError(l.position("count"), "wait takes ctx= or count=, not both");
                }
                if (l.has("ctx")) {
                    waitedByContext.add(l.positional(0));
                }
                atLeastOne(l, "count");
            }
            case "resize" -> cqDepth(l, use(l, 0, Schema.ObjectKind.CQ).host, "depth");
            case "close" -> {
                Obj o = use(l, 0, Schema.ObjectKind.ANY);
                o.closedAt = l.position();
            }
            case "check" -> memoryCheck(l);
            case "dump" -> dump(l);
            default -> throw new IllegalStateException("keyword without a check: " + l.keyword());
        }
    }

    private static void atLeastOne(TraceLine l, String key) {
        if (l.has(key) && l.integer(key) < 1) {
            throw new TraceError(l.position(key), key + " must be at least 1, got " + l.text(key));
        }
    }

    // ---- hosts ----

    private void host(TraceLine l) {
        String name = l.positional(0);
        if (otherDeclarationSeen) {
            throw new TraceError(l.position(), "host lines come before any other line");
        }
        for (Host h : hosts) {
            if (h.name.equals(name)) {
                throw new TraceError(l.positionalPosition(0), "host '" + name + "' is already declared (at " + h.at + ")");
            }
        }
        if (hosts.size() == 2) {
            throw new TraceError(l.position(), "a trace has at most two hosts (" + hosts.get(0).name + " and "
                    + hosts.get(1).name + " are declared)");
        }
        hosts.add(new Host(name, l.position(), hostProfile(l, baseDir, defaultProfile, overrides)));
    }

    /** The host an object name lives on, by its host part; an undeclared host is an error. */
    private Host hostOf(String object, Position at) {
        int dot = object.indexOf('.');
        for (Host h : hosts) {
            if (h.name.length() == dot && object.startsWith(h.name)) {
                return h;
            }
        }
        String declared = hosts.isEmpty() ? "no host is declared" : "hosts: " + hostNames();
        throw new TraceError(at, "unknown host '" + object.substring(0, dot) + "' in '" + object + "' (" + declared + ")");
    }

    private String hostNames() {
        StringBuilder b = new StringBuilder();
        for (Host h : hosts) {
            b.append(b.length() == 0 ? "" : ", ").append(h.name);
        }
        return b.toString();
    }

    // ---- objects ----

    private Obj declare(TraceLine l, Schema.ObjectKind kind) {
        String name = l.positional(0);
        Position at = l.positionalPosition(0);
        Host host = hostOf(name, at);
        Obj old = objects.get(name);
        if (old != null && old.closedAt == null && old.failsAt == null) {
            throw new TraceError(at, "'" + name + "' is already declared (at " + old.at + ")");
        }
        Obj o = new Obj(kind, host, l.position());
        if (l.expectedStatus(SUCCESS) != SUCCESS) {
            o.failsAt = l.position("expect");
        }
        objects.put(name, o);
        return o;
    }

    private Obj use(TraceLine l, int positional, Schema.ObjectKind kind) {
        return lookup(l.positional(positional), l.positionalPosition(positional), kind);
    }

    private Obj useKey(TraceLine l, String key, Schema.ObjectKind kind) {
        return lookup(l.text(key), l.position(key), kind);
    }

    private Obj lookup(String name, Position at, Schema.ObjectKind kind) {
        // Names of a repeat body's literal values are the same String each iteration: a small
        // identity cache saves the map lookup; a closed entry falls through to the map.
        int h = name.hashCode() & (CACHE - 1);
        Obj o = cachedNames[h] == name ? cachedObjects[h] : null;
        if (o == null || o.closedAt != null) {
            o = objects.get(name);
            cachedNames[h] = name;
            cachedObjects[h] = o;
        }
        if (o == null) {
            hostOf(name, at);
            throw new TraceError(at, "unknown object '" + name + "' (declare it with a "
                    + (kind == Schema.ObjectKind.ANY ? "cq, pd, mr or qp" : kind.word) + " line first)");
        }
        if (o.closedAt != null) {
            throw new TraceError(at, "'" + name + "' is closed (at " + o.closedAt + ")");
        }
        if (o.failsAt != null) {
            throw new TraceError(at, "'" + name + "' does not exist: its creation is expected to fail (at " + o.failsAt
                    + ")");
        }
        if (kind != Schema.ObjectKind.ANY && o.kind != kind) {
            throw new TraceError(at, "'" + name + "' is " + o.kind.article + ", expected " + kind.article);
        }
        return o;
    }

    private static void sameHost(Obj o, String name, Position at, Obj owner, String ownerName) {
        if (o.host != owner.host) {
            throw new TraceError(at, "'" + name + "' is on host " + o.host.name + ", but '" + ownerName + "' is on host "
                    + owner.host.name);
        }
    }

    private void mr(TraceLine l) {
        Obj mr = declare(l, Schema.ObjectKind.MR);
        Obj pd = useKey(l, "pd", Schema.ObjectKind.PD);
        sameHost(pd, l.text("pd"), l.position("pd"), mr, l.positional(0));
        mr.size = l.size("size");
        if (mr.size == 0) {
            throw new TraceError(l.position("size"), "size must be at least 1 byte");
        }
        limit(l, mr.host, "size", mr.size, Parameters.NDK_MAX_REGISTRATION_SIZE, "registration size");
        regionCount++;
    }

    private void qp(TraceLine l) {
        Obj qp = declare(l, Schema.ObjectKind.QP);
        String name = l.positional(0);
        sameHost(useKey(l, "pd", Schema.ObjectKind.PD), l.text("pd"), l.position("pd"), qp, name);
        sameHost(useKey(l, "rcq", Schema.ObjectKind.CQ), l.text("rcq"), l.position("rcq"), qp, name);
        sameHost(useKey(l, "icq", Schema.ObjectKind.CQ), l.text("icq"), l.position("icq"), qp, name);
        limit(l, qp.host, "rq", l.integer("rq"), Parameters.NDK_MAX_RECEIVE_QUEUE_DEPTH, "receive queue depth");
        limit(l, qp.host, "iq", l.integer("iq"), Parameters.NDK_MAX_INITIATOR_QUEUE_DEPTH, "initiator queue depth");
        limit(l, qp.host, "rsge", l.integer("rsge"), Parameters.NDK_MAX_RECEIVE_REQUEST_SGE, "receive SGEs");
        limit(l, qp.host, "isge", l.integer("isge"), Parameters.NDK_MAX_INITIATOR_REQUEST_SGE, "initiator SGEs");
        limit(l, qp.host, "inline", l.size("inline"), Parameters.NDK_MAX_INLINE_DATA_SIZE, "inline data size");
    }

    private void connect(TraceLine l) {
        Obj qp = use(l, 0, Schema.ObjectKind.QP);
        Obj peer = use(l, 1, Schema.ObjectKind.QP);
        if (qp.host == peer.host) {
            throw new TraceError(l.positionalPosition(1), "connect needs QPs on different hosts: '" + l.positional(0)
                    + "' and '" + l.positional(1) + "' are both on host " + qp.host.name);
        }
        if (l.integer("port") > 65535) {
            throw new TraceError(l.position("port"), "port " + l.text("port") + " is not a port (0 to 65535)");
        }
        if (l.has("data")) {
            limit(l, qp.host, "data", l.bytes("data").length, Parameters.NDK_MAX_CALLER_DATA, "connect private data");
        }
        if (l.has("peer_data")) {
            limit(l, peer.host, "peer_data", l.bytes("peer_data").length, Parameters.NDK_MAX_CALLEE_DATA,
                    "accept private data");
        }
    }

    private void transfer(TraceLine l) {
        Obj qp = use(l, 0, Schema.ObjectKind.QP);
        String qpName = l.positional(0);
        long total = 0;
        for (Buffer b : l.buffers("sge")) {
            Obj mr = lookup(b.mr(), b.position(), Schema.ObjectKind.MR);
            sameHost(mr, b.mr(), b.position(), qp, qpName);
            long end = b.offset() + b.length();
            if (end < 0 || end > mr.size) {
                throw new TraceError(b.position(), "buffer " + b.mr() + "+" + b.offset() + ":" + b.length() + " ends at byte "
                        + (end < 0 ? "2^63 or beyond" : end) + ", past the end of '" + b.mr() + "' (size " + mr.size
                        + ")");
            }
            touch(mr, b.length());
            total = total > Long.MAX_VALUE - b.length() ? Long.MAX_VALUE : total + b.length();
        }
        String keyword = l.keyword();
        if (keyword.equals("write") || keyword.equals("read")) {
            Remote r = l.remote("remote");
            Obj mr = lookup(r.mr(), r.position(), Schema.ObjectKind.MR);
            if (mr.host == qp.host) {
                throw new TraceError(r.position(), "remote region '" + r.mr() + "' is on host " + mr.host.name
                        + ", the host of '" + qpName + "' (expected a region on the peer host)");
            }
            long end = r.offset() + total;
            // A line that expects a status is a test of the provider: the adapter, not the checker, refuses the range.
            if ((end < 0 || end > mr.size) && !l.expects()) {
                throw new TraceError(r.position(), "remote range " + r.mr() + "+" + r.offset() + " of " + total
                        + " bytes ends at byte " + (end < 0 ? "2^63 or beyond" : end) + ", past the end of '" + r.mr()
                        + "' (size " + mr.size + ")");
            }
            touch(mr, total);
        }
    }

    /** Bytes of host memory (the Java heap) per 4 KiB page a run touches: the page and its map entry. */
    private static final long PAGE_COST = 4096 + 64;
    /** What the simulator needs besides the regions' pages (adapters, queues, statistics, the checker). */
    private static final long BASE_HEAP = 16L << 20;

    /**
     * Host memory costs the pages a run touches (fills are made on first touch), at most a region's size
     * per region, and a translation page per 512 pages: if that exceeds the heap, the run is refused now
     * rather than failing with an out-of-memory error after a long simulation. The estimate counts every
     * byte a call names, so a region used over and over counts up to its size.
     */
    private void checkHeap() {
        long pages = touchedBytes / 4096 + 3 * regionCount;
        pages += pages / 512;
        long need = pages > (Long.MAX_VALUE - BASE_HEAP) / PAGE_COST ? Long.MAX_VALUE : BASE_HEAP + pages * PAGE_COST;
        if (need > heapBytes && mostTouched != null) {
            throw new TraceError(mostTouched.at, String.format(java.util.Locale.US, "this run would touch about %s"
                    + " of host memory (the pages of the regions that calls use, this one the most), more than the"
                    + " Java heap of %s: give the JVM more (RDMASIM_JAVA_OPTS=-Xmx...) or use smaller buffers",
                    mib(need), mib(heapBytes)));
        }
    }

    /** Counts {@code bytes} named in region {@code mr} towards the pages a run touches (at most its size). */
    private void touch(Obj mr, long bytes) {
        long before = Math.min(mr.touched, mr.size);
        mr.touched = mr.touched > Long.MAX_VALUE - bytes ? Long.MAX_VALUE : mr.touched + bytes;
        long after = Math.min(mr.touched, mr.size);
        touchedBytes = touchedBytes > Long.MAX_VALUE - (after - before) ? Long.MAX_VALUE : touchedBytes + after - before;
        if (mostTouched == null || after > Math.min(mostTouched.touched, mostTouched.size)) {
            mostTouched = mr;
        }
    }

    private static String mib(long bytes) {
        return bytes >= (10L << 30) ? (bytes >> 30) + " GiB" : (bytes >> 20) + " MiB";
    }

    /** As {@link #check(Reader, String, Path)}, for a run whose heap is {@code heapBytes} (the estimate's limit). */
    static Summary check(Reader in, String fileName, Path baseDir, long heapBytes) {
        try (TraceReader reader = new TraceReader(in, fileName)) {
            TraceChecker c = new TraceChecker(baseDir);
            c.heapBytes = heapBytes;
            return c.run(reader);
        }
    }

    // ---- memory checks and dumps ----

    /** The line's buffer, inside a region that exists. */
    private Obj region(TraceLine l, Buffer b) {
        Obj mr = lookup(b.mr(), b.position(), Schema.ObjectKind.MR);
        long end = b.offset() + b.length();
        if (end < 0 || end > mr.size) {
            throw new TraceError(b.position(), "range " + b.mr() + "+" + b.offset() + ":" + b.length() + " ends at byte "
                    + (end < 0 ? "2^63 or beyond" : end) + ", past the end of '" + b.mr() + "' (size " + mr.size + ")");
        }
        if (b.length() == 0) {
            throw new TraceError(b.position(), "a range of " + l.keyword() + " must hold at least 1 byte");
        }
        return mr;
    }

    private void memoryCheck(TraceLine l) {
        Buffer b = l.buffer(0);
        region(l, b);
        int given = (l.has("data") ? 1 : 0) + (l.has("fill") ? 1 : 0) + (l.has("same") ? 1 : 0);
        if (given != 1) {
            throw new TraceError(l.position(), "check takes one of data=BYTES, fill=FILL or same=MR+OFFSET, got " + given);
        }
        if (l.has("data") && l.bytes("data").length != b.length()) {
            throw new TraceError(l.position("data"), "data= holds " + l.bytes("data").length + " bytes, the range "
                    + b.length());
        }
        if (l.has("same")) {
            Remote r = l.remote("same");
            Obj other = lookup(r.mr(), r.position(), Schema.ObjectKind.MR);
            long end = r.offset() + b.length();
            if (end < 0 || end > other.size) {
                throw new TraceError(r.position(), "range " + r.mr() + "+" + r.offset() + " of " + b.length()
                        + " bytes ends at byte " + (end < 0 ? "2^63 or beyond" : end) + ", past the end of '" + r.mr()
                        + "' (size " + other.size + ")");
            }
        }
    }

    /** Names a replay writes itself; a dump may not take them. */
    private static final java.util.Set<String> OUTPUT_NAMES = java.util.Set.of("completions.csv", "lifecycle.csv",
            "notifications.csv", "summary.json", "wave.vcd", "timeline.json", "wire.pcap");

    private final java.util.Map<String, Position> dumps = new HashMap<>();

    private void dump(TraceLine l) {
        region(l, l.buffer(0));
        String name = l.text("file");
        boolean plain = !name.equals(".") && !name.equals("..") && !name.endsWith(".partial");
        for (int i = 0; plain && i < name.length(); i++) {
            char c = name.charAt(i);
            plain = Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-';
        }
        if (!plain) {
            throw new TraceError(l.position("file"), "expected a file name of letters, digits, '.', '_' and '-' (written "
                    + "in the output directory), got '" + name + "'");
        }
        if (OUTPUT_NAMES.contains(name.toLowerCase(java.util.Locale.ROOT))) {
            throw new TraceError(l.position("file"), "'" + name + "' is an output of the replay itself");
        }
        Position first = dumps.putIfAbsent(name.toLowerCase(java.util.Locale.ROOT), l.position("file"));
        if (first != null) {
            throw new TraceError(l.position("file"), "file '" + name + "' is already written by the dump at " + first);
        }
    }

    // ---- profile limits ----

    private static void cqDepth(TraceLine l, Host host, String key) {
        if (l.integer(key) == 0) {
            throw new TraceError(l.position(key), key + " must be at least 1");
        }
        limit(l, host, key, l.integer(key), Parameters.NDK_MAX_CQ_DEPTH, "CQ depth");
    }

    /**
     * A value above the host's limit is refused here, unless the line expects a status ({@code expect=}): then the
     * NDK call gets the value and its status is checked when the line runs. (A registration size is always
     * checked: the replay allocates the buffer before it registers it.)
     */
    private static void limit(TraceLine l, Host host, String key, long value, Parameter<Long> max, String what) {
        long limit = host.profile.getLong(max);
        if (value > limit && (!l.expects() || max == Parameters.NDK_MAX_REGISTRATION_SIZE)) {
            String shown = l.schema().args[l.schema().slotOrThrow(key)].kind() == Schema.Kind.BYTES
                    ? "of " + value + " bytes" : l.text(key);
            throw new TraceError(l.position(key), key + " " + shown + " is above the profile's maximum " + what
                    + " (" + max.key() + " = " + max.format(limit) + ")");
        }
    }

    private record Host(String name, Position at, Profile profile) {
    }

    /** A declared object: its kind, host, where it was declared, and what later checks need. */
    private static final class Obj {
        final Schema.ObjectKind kind;
        final Host host;
        final Position at;
        Position closedAt;
        /** The {@code expect=} of a declaration that is meant to fail: the object never exists. */
        Position failsAt;
        long size;
        /** Bytes calls have named in this region (saturating): the pages a run may touch. */
        long touched;

        Obj(Schema.ObjectKind kind, Host host, Position at) {
            this.kind = kind;
            this.host = host;
            this.at = at;
        }
    }
}
