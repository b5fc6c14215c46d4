package dev.rdmasim.traces.format;

import java.util.ArrayList;
import java.util.List;

/**
 * The format's vocabulary in one table: every keyword with its positional arguments and keys, their
 * value kinds, which keys are required, and which object kind an argument names. The reader checks
 * lines against it; {@link TraceLine} accessors and {@link TraceChecker} look arguments up through it.
 */
final class Schema {
    /** How a value is written. */
    enum Kind {
        HOST, OBJECT, INTEGER, SIZE, TIME, CALL_FLAGS, MR_FLAGS, NOTIFY, BUFFERS, REMOTE, BYTES, TEXT, POLL, FILL, SETTINGS, STATUS;

        /** Kinds parsed to a number kept in the line's {@code long} slot. */
        boolean numeric() {
            return this == INTEGER || this == SIZE || this == TIME || this == CALL_FLAGS || this == MR_FLAGS
                    || this == NOTIFY || this == STATUS;
        }

        /** Kinds parsed to an object kept in the line's object slot. */
        boolean structured() {
            return this == BUFFERS || this == REMOTE || this == BYTES || this == FILL || this == SETTINGS;
        }
    }

    /** The kinds of object a trace declares, for arguments that name one. */
    enum ObjectKind {
        CQ("cq", "a cq"), PD("pd", "a pd"), MR("mr", "an mr"), QP("qp", "a qp"), ANY("object", "an object");

        final String word;
        /** The word with its article, for messages. */
        final String article;

        ObjectKind(String word, String article) {
            this.word = word;
            this.article = article;
        }
    }

    /** One argument: positional (name in upper case, as the spec writes it) or a key. */
    record Arg(String name, Kind kind, ObjectKind object, boolean required, boolean declares) {
    }

    /** One keyword: its arguments are slots 0..positionals-1, then the keys in table order. */
    static final class Keyword {
        final String name;
        final boolean call;
        final int positionals;
        final Arg[] args;
        /** The keys' names, lower case, in slot order after the positionals. */
        final String[] keys;
        final boolean anyStructured;
        /** The slot of {@code expect=}, or -1 (looked up once: a replay asks every posted line). */
        final int expectSlot;

        Keyword(String name, boolean call, Arg[] args) {
            this.name = name;
            this.call = call;
            this.args = args;
            int p = 0;
            boolean structured = false;
            List<String> k = new ArrayList<>();
            for (Arg a : args) {
                if (Character.isUpperCase(a.name().charAt(0))) {
                    p++;
                } else {
                    k.add(a.name());
                }
                structured |= a.kind().structured();
            }
            this.positionals = p;
            this.keys = k.toArray(new String[0]);
            this.anyStructured = structured;
            this.expectSlot = slot("expect");
        }

        /** The slot of a key (lower case), or -1. */
        int slot(String key) {
            for (int i = 0; i < keys.length; i++) {
                if (keys[i].equals(key)) {
                    return positionals + i;
                }
            }
            return -1;
        }

        /** The slot of a key; a key the keyword does not have is a programming error. */
        int slotOrThrow(String key) {
            int s = slot(key);
            if (s < 0) {
                throw new IllegalArgumentException(name + " has no key '" + key + "'");
            }
            return s;
        }

        int slots() {
            return args.length;
        }

        /** "NAME depth=N" style usage, for messages. */
        String positionalNames() {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < positionals; i++) {
                b.append(i == 0 ? "" : " ").append(args[i].name());
            }
            return b.toString();
        }
    }

    private static Arg pos(String name, Kind kind) {
        return new Arg(name, kind, null, true, false);
    }

    private static Arg ref(String name, ObjectKind object) {
        return new Arg(name, Kind.OBJECT, object, true, false);
    }

    private static Arg declares(ObjectKind object) {
        return new Arg("NAME", Kind.OBJECT, object, true, true);
    }

    private static Arg req(String key, Kind kind) {
        return new Arg(key, kind, null, true, false);
    }

    private static Arg opt(String key, Kind kind) {
        return new Arg(key, kind, null, false, false);
    }

    private static Arg reqRef(String key, ObjectKind object) {
        return new Arg(key, Kind.OBJECT, object, true, false);
    }

    /** {@code expect=STATUS}: the NTSTATUS the line's NDK call is meant to end with. */
    private static Arg expect() {
        return opt("expect", Kind.STATUS);
    }

    private static Keyword decl(String name, Arg... args) {
        return new Keyword(name, false, args);
    }

    private static Keyword call(String name, Arg... args) {
        return new Keyword(name, true, args);
    }

    private static final ObjectKind CQ = ObjectKind.CQ;
    private static final ObjectKind PD = ObjectKind.PD;
    private static final ObjectKind MR = ObjectKind.MR;
    private static final ObjectKind QP = ObjectKind.QP;

    /** The table: docs/trace-format.md's "Declarations" and "Calls", in that order. */
    static final Keyword[] KEYWORDS = {
        decl("host", pos("NAME", Kind.HOST), opt("profile", Kind.TEXT), opt("set", Kind.SETTINGS)),
        decl("cq", declares(CQ), req("depth", Kind.INTEGER), opt("poll", Kind.POLL), expect()),
        decl("pd", declares(PD)),
        decl("mr", declares(MR), reqRef("pd", PD), req("size", Kind.SIZE), opt("access", Kind.MR_FLAGS),
                opt("fill", Kind.FILL), expect()),
        decl("qp", declares(QP), reqRef("pd", PD), reqRef("rcq", CQ), reqRef("icq", CQ), req("rq", Kind.INTEGER),
                req("iq", Kind.INTEGER), req("rsge", Kind.INTEGER), req("isge", Kind.INTEGER), req("inline", Kind.SIZE),
                opt("context", Kind.TEXT), expect()),
        decl("connect", ref("QP", QP), ref("PEER_QP", QP), req("port", Kind.INTEGER), opt("in", Kind.INTEGER),
                opt("out", Kind.INTEGER), opt("data", Kind.BYTES), opt("peer_in", Kind.INTEGER),
                opt("peer_out", Kind.INTEGER), opt("peer_data", Kind.BYTES), expect()),
        call("send", ref("QP", QP), req("ctx", Kind.TEXT), opt("sge", Kind.BUFFERS), opt("flags", Kind.CALL_FLAGS),
                expect()),
        call("receive", ref("QP", QP), req("ctx", Kind.TEXT), opt("sge", Kind.BUFFERS), expect()),
        call("write", ref("QP", QP), req("ctx", Kind.TEXT), opt("sge", Kind.BUFFERS), req("remote", Kind.REMOTE),
                opt("flags", Kind.CALL_FLAGS), expect()),
        call("read", ref("QP", QP), req("ctx", Kind.TEXT), opt("sge", Kind.BUFFERS), req("remote", Kind.REMOTE),
                opt("flags", Kind.CALL_FLAGS), expect()),
        call("flush", ref("QP", QP)),
        call("arm", ref("CQ", CQ), pos("TYPE", Kind.NOTIFY), expect()),
        call("poll", ref("CQ", CQ), opt("max", Kind.INTEGER)),
        call("wait", ref("CQ", CQ), opt("ctx", Kind.TEXT), opt("count", Kind.INTEGER)),
        call("moderate", ref("CQ", CQ), req("interval", Kind.TIME), req("count", Kind.INTEGER), expect()),
        call("resize", ref("CQ", CQ), req("depth", Kind.INTEGER), expect()),
        call("disconnect", ref("QP", QP), expect()),
        call("close", ref("OBJECT", ObjectKind.ANY)),
        // Not NDK calls: they look at host memory at their time (a memory check, a dump into the output directory).
        call("check", pos("BUFFER", Kind.BUFFERS), opt("data", Kind.BYTES), opt("fill", Kind.FILL),
                opt("same", Kind.REMOTE)),
        call("dump", pos("BUFFER", Kind.BUFFERS), req("file", Kind.TEXT)),
    };

    /** Every keyword a line may start with, including the structural ones, for messages. */
    static final String[] ALL_KEYWORDS;

    static {
        ALL_KEYWORDS = new String[KEYWORDS.length + 2];
        for (int i = 0; i < KEYWORDS.length; i++) {
            ALL_KEYWORDS[i] = KEYWORDS[i].name;
        }
        ALL_KEYWORDS[KEYWORDS.length] = "repeat";
        ALL_KEYWORDS[KEYWORDS.length + 1] = "end";
    }

    private Schema() {
    }

    /** The keyword named (lower case), or null. */
    static Keyword keyword(String lowerName) {
        for (Keyword k : KEYWORDS) {
            if (k.name.equals(lowerName)) {
                return k;
            }
        }
        return null;
    }
}
