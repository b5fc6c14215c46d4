package dev.rdmasim.ndk;

import java.util.Map;
import java.util.TreeMap;

/**
 * NTSTATUS values the NDK interface returns and completes requests with, named and valued as in
 * {@code ntstatus.h}. A status is a plain {@code int}, as in C: compare with {@code ==}, test
 * success with {@link #NT_SUCCESS}. Severity is in the top two bits: 0x0 success, 0x4 informational,
 * 0x8 warning, 0xC error.
 */
public final class NtStatus {
    private static final char[] HEX_DIGITS = "0123456789ABCDEF".toCharArray();

    public static final int STATUS_SUCCESS = 0x00000000;
    public static final int STATUS_PENDING = 0x00000103;
    /** Warning: the data did not fit (a receive smaller than the send; a CQ overrun notification). */
    public static final int STATUS_BUFFER_OVERFLOW = 0x80000005;
    /** Warning: the object is in use (deregistering an MR with a bound window). */
    public static final int STATUS_DEVICE_BUSY = 0x80000011;
    /** Warning: no room (a post to a full queue). */
    public static final int STATUS_NO_MORE_ENTRIES = 0x8000001A;
    public static final int STATUS_ACCESS_VIOLATION = 0xC0000005;
    public static final int STATUS_INVALID_PARAMETER = 0xC000000D;
    public static final int STATUS_BUFFER_TOO_SMALL = 0xC0000023;
    public static final int STATUS_INVALID_PARAMETER_MIX = 0xC0000030;
    public static final int STATUS_DATA_OVERRUN = 0xC000003C;
    public static final int STATUS_SHARING_VIOLATION = 0xC0000043;
    public static final int STATUS_INSUFFICIENT_RESOURCES = 0xC000009A;
    public static final int STATUS_IO_TIMEOUT = 0xC00000B5;
    public static final int STATUS_NOT_SUPPORTED = 0xC00000BB;
    public static final int STATUS_INTERNAL_ERROR = 0xC00000E5;
    /** Flags not valid for the call (ND2's bad-flags status). */
    public static final int STATUS_INVALID_PARAMETER_4 = 0xC00000F2;
    public static final int STATUS_CANCELLED = 0xC0000120;
    /** The object is not in a state that allows the request (the firmware refused a transition). */
    public static final int STATUS_INVALID_DEVICE_STATE = 0xC0000184;
    /** An error on the remote QP (ND2's remote error). */
    public static final int STATUS_REMOTE_RESOURCES = 0xC000013D;
    public static final int STATUS_INVALID_ADDRESS = 0xC0000141;
    public static final int STATUS_INVALID_BUFFER_SIZE = 0xC0000206;
    public static final int STATUS_ADDRESS_ALREADY_EXISTS = 0xC000020A;
    public static final int STATUS_CONNECTION_DISCONNECTED = 0xC000020C;
    public static final int STATUS_CONNECTION_REFUSED = 0xC0000236;
    public static final int STATUS_CONNECTION_INVALID = 0xC000023A;
    public static final int STATUS_CONNECTION_ACTIVE = 0xC000023B;
    public static final int STATUS_CONNECTION_ABORTED = 0xC0000241;
    public static final int STATUS_IMPLEMENTATION_LIMIT = 0xC000042B;

    private static final Map<Integer, String> NAMES = new TreeMap<>();

    static {
        for (var f : NtStatus.class.getFields()) {
            if (f.getType() == int.class && f.getName().startsWith("STATUS_")) {
                try {
                    NAMES.put(f.getInt(null), f.getName());
                } catch (IllegalAccessException e) {
                    throw new ExceptionInInitializerError(e);
                }
            }
        }
    }

    private NtStatus() {
    }

    /** True for success and informational values (the NT_SUCCESS macro: severity bits not 0b11 or 0b10). */
    public static boolean NT_SUCCESS(int status) {
        return status >= 0;
    }

    /** The {@code STATUS_*} name of a value, or its hex form when this interface does not use it. */
    public static String name(int status) {
        String n = NAMES.get(status);
        return n != null ? n : hex(status);
    }

    /** {@code 0x} and eight upper-case hex digits, as NTSTATUS values are written. */
    public static String hex(int status) {
        char[] c = new char[10];
        c[0] = '0';
        c[1] = 'x';
        for (int i = 0; i < 8; i++) {
            c[9 - i] = HEX_DIGITS[(status >>> (4 * i)) & 0xF];
        }
        return new String(c);
    }

    /** Every {@code STATUS_*} name this interface uses, in value order. */
    public static java.util.Collection<String> names() {
        return java.util.Collections.unmodifiableCollection(NAMES.values());
    }

    /** The value of a {@code STATUS_*} name (with or without the prefix), or null. */
    public static Integer valueOf(String name) {
        String n = name.startsWith("STATUS_") ? name : "STATUS_" + name;
        for (var e : NAMES.entrySet()) {
            if (e.getValue().equals(n)) {
                return e.getKey();
            }
        }
        return null;
    }
}
