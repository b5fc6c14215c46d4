package dev.rdmasim.adapter.format;

/** Range checks and narrow-field reads shared by the context records. */
final class Fields {
    private Fields() {
    }

    static void checkRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ": " + value);
        }
    }

    static void check24(String name, int value) {
        checkRange(name, value, 0, 0xff_ffff);
    }

    /** A 24-bit number stored in the low three bytes of a big-endian 32-bit word. */
    static int u24At32(byte[] b, int off) {
        return BigEndian.i32(b, off) & 0xff_ffff;
    }
}
