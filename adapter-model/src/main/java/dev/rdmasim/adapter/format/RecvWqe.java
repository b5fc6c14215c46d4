package dev.rdmasim.adapter.format;

/**
 * Receive WQE: data segments only, in a fixed per-RQ stride of {@code 2^logStride} 16-byte segments.
 * When a WQE has fewer SGEs than the stride, the entry after the last SGE is a terminator
 * {byte count 0, lkey {@link DataSegments#INVALID_LKEY}, address 0}. The RQ ring is a power-of-two
 * number of strides, so a receive WQE never wraps. Driver-side writers are static; the adapter parses
 * with a {@link Parser}.
 */
public final class RecvWqe {
    private RecvWqe() {
    }

    public static int strideBytes(int logStrideSegs) {
        return DataSegments.SEGMENT << logStrideSegs;
    }

    /** Writes SGE {@code i} of the receive WQE at {@code wqeOff}. */
    public static void writeSge(byte[] b, int wqeOff, int i, long address, int length, int lkey) {
        DataSegments.writeData(b, wqeOff + i * DataSegments.SEGMENT, address, length, lkey);
    }

    /** Ends a WQE of {@code count} SGEs: writes the terminator unless the stride is full. */
    public static void terminate(byte[] b, int wqeOff, int count, int strideSegs) {
        if (count < 0 || count > strideSegs) {
            throw new IllegalArgumentException("SGE count must be 0.." + strideSegs + ": " + count);
        }
        if (count < strideSegs) {
            DataSegments.writeData(b, wqeOff + count * DataSegments.SEGMENT, 0, 0, DataSegments.INVALID_LKEY);
        }
    }

    /** Adapter side: parses a receive WQE into a reusable scatter list; reports errors as syndromes. */
    public static final class Parser {
        private final ScatterList sges;
        private int error;

        public Parser(int sgeCapacity) {
            sges = new ScatterList(sgeCapacity);
        }

        /**
         * @param strideSegs the RQ stride in 16-byte segments
         * @param maxSge     the QP's receive SGE limit (<= capacity)
         * @return 0 when valid, else the syndrome ({@link #error()} gives the {@link WqeError} detail)
         */
        public int parse(byte[] b, int wqeOff, int strideSegs, int maxSge) {
            if (maxSge < 1 || maxSge > sges.capacity()) {
                throw new IllegalArgumentException("maxSge must be 1.." + sges.capacity() + ": " + maxSge);
            }
            sges.clear();
            error = scan(b, wqeOff, strideSegs, maxSge);
            return WqeError.syndrome(error);
        }

        private int scan(byte[] b, int wqeOff, int strideSegs, int maxSge) {
            for (int i = 0; i < strideSegs; i++) {
                int d = wqeOff + i * DataSegments.SEGMENT;
                int word = DataSegments.byteCountWord(b, d);
                if (DataSegments.lkey(b, d) == DataSegments.INVALID_LKEY) {
                    break;
                }
                if (DataSegments.isInline(word)) {
                    return WqeError.INLINE_NOT_ALLOWED;
                }
                if (i >= maxSge) {
                    return WqeError.TOO_MANY_SGE;
                }
                if (word == 0) {
                    return WqeError.ZERO_LENGTH_SGE;
                }
                sges.add(DataSegments.address(b, d), word, DataSegments.lkey(b, d));
            }
            return sges.totalLength() >= DataSegments.MAX_MESSAGE ? WqeError.MESSAGE_TOO_LONG : WqeError.OK;
        }

        public int error() {
            return error;
        }

        public ScatterList sges() {
            return sges;
        }
    }
}
