package dev.rdmasim.traces.replay;

import dev.rdmasim.ndk.NdkConstants;
import dev.rdmasim.ndk.NdkCq;
import dev.rdmasim.ndk.NdkResultEx;

/** A CQ and what the replay keeps for it. */
final class CqEntry {
    /** How many unclaimed contexts a CQ waited on by context remembers. */
    static final int REMEMBERED = 1 << 16;

    final String name;
    final int host;
    NdkCq cq;
    long notifications;
    boolean auto;
    /** What the CQ is armed for (the strongest arm since its last notification), -1: not armed. */
    int armedType = -1;
    /**
     * Contexts taken from this CQ that no {@code wait ... ctx=} has claimed yet, with their counts, oldest first;
     * null when no such wait names the CQ. At most {@link #REMEMBERED} (the oldest are forgotten).
     */
    java.util.LinkedHashMap<String, int[]> taken;
    final NdkResultEx[] results = new NdkResultEx[Replay.POLL_BATCH];

    CqEntry(String name, int host) {
        this.name = name;
        this.host = host;
        for (int i = 0; i < results.length; i++) {
            results[i] = new NdkResultEx();
        }
    }

    void remember(String ctx) {
        int[] n = taken.get(ctx);
        if (n != null) {
            n[0]++;
            return;
        }
        if (taken.size() == REMEMBERED) {
            var eldest = taken.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
        taken.put(ctx, new int[] {1});
    }

    /** Takes one remembered completion of {@code ctx}; false if none was taken (or it was forgotten). */
    boolean claim(String ctx) {
        int[] n = taken == null ? null : taken.get(ctx);
        if (n == null) {
            return false;
        }
        if (--n[0] == 0) {
            taken.remove(ctx);
        }
        return true;
    }

    void armed(int type) {
        if (rank(type) > rank(armedType)) {
            armedType = type;
        }
    }

    private static int rank(int type) {
        return switch (type) {
            case NdkConstants.NDK_CQ_NOTIFY_ANY -> 3;
            case NdkConstants.NDK_CQ_NOTIFY_SOLICITED -> 2;
            case NdkConstants.NDK_CQ_NOTIFY_ERRORS -> 1;
            default -> 0;
        };
    }

    /** The arm's name as the trace writes it. */
    String armedName() {
        return switch (armedType) {
            case NdkConstants.NDK_CQ_NOTIFY_ANY -> "ANY";
            case NdkConstants.NDK_CQ_NOTIFY_SOLICITED -> "SOLICITED";
            case NdkConstants.NDK_CQ_NOTIFY_ERRORS -> "ERRORS";
            default -> "";
        };
    }
}
