package dev.rdmasim.adapter.pcie;

import dev.rdmasim.kernel.InvariantViolation;

/**
 * Free list of TLPs. It grows while the link warms up and then recycles; a hard cap turns a leak (TLPs never
 * released) into an {@link InvariantViolation} rather than an out-of-memory.
 */
final class TlpPool {
    private final int maxPayload;
    private final int cap;
    private Tlp[] free;
    private int freeCount;
    private int created;

    TlpPool(int maxPayload, int initial, int cap) {
        this.maxPayload = maxPayload;
        this.cap = cap;
        this.free = new Tlp[Math.max(16, initial)];
        for (int i = 0; i < initial; i++) {
            free[freeCount++] = new Tlp(maxPayload);
        }
        created = initial;
    }

    Tlp acquire(TlpKind kind) {
        Tlp t;
        if (freeCount > 0) {
            t = free[--freeCount];
            free[freeCount] = null;
        } else {
            if (created >= cap) {
                throw new InvariantViolation("TLP pool exhausted: " + cap + " TLPs alive, a block is not releasing them");
            }
            created++;
            t = new Tlp(maxPayload);
        }
        t.kind = kind;
        return t;
    }

    void release(Tlp t) {
        if (t.kind == null) {
            throw new InvariantViolation("TLP released twice");
        }
        t.clear();
        if (freeCount == free.length) {
            free = java.util.Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = t;
    }

    /** TLPs created so far (in use + free). */
    int created() {
        return created;
    }

    int free() {
        return freeCount;
    }
}
