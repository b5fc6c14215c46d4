package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkConstants.*;
import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.driver.MemoryRegion;

/**
 * {@code NDK_MR}: a memory region. {@link #registerMr} writes the buffer's translation table into
 * host memory and registers it with a firmware command; the tokens then name it: the local token in
 * the SGEs of local requests, the remote token in a peer's RDMA WRITE and READ.
 */
public final class NdkMr extends NdkObject {
    private static final int KNOWN_FLAGS = NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ
            | NDK_MR_FLAG_ALLOW_REMOTE_WRITE | NDK_MR_FLAG_RDMA_READ_SINK;
    /** The bit REMOTE_WRITE adds to LOCAL_WRITE. */
    private static final int REMOTE_WRITE_BIT = NDK_MR_FLAG_ALLOW_REMOTE_WRITE & ~NDK_MR_FLAG_ALLOW_LOCAL_WRITE;

    private final NdkPd pd;
    private MemoryRegion hw;
    private boolean busy;

    NdkMr(NdkPd pd) {
        super(pd.adapter, NdkConstants.NdkObjectTypeMr, pd);
        this.pd = pd;
    }

    /**
     * {@code NdkRegisterMr}: registers {@code [buffer, buffer + length)} with {@code flags}
     * ({@code NDK_MR_FLAG_*}). Returns {@code STATUS_PENDING} ({@code requestCompletion} reports the
     * outcome); {@code STATUS_INVALID_PARAMETER} for a zero or too large length, unknown flags or an MR
     * that is registered already, {@code STATUS_INVALID_PARAMETER_MIX} for remote write without local write.
     */
    public int registerMr(long buffer, long length, int flags, NdkCallbacks.RequestCompletion requestCompletion,
            Object requestContext) {
        checkUsable();
        if (hw != null || busy || length <= 0 || length > adapter.info().maxRegistrationSize
                || (flags & ~KNOWN_FLAGS) != 0 || buffer < 0) {
            return STATUS_INVALID_PARAMETER;
        }
        if ((flags & REMOTE_WRITE_BIT) != 0 && (flags & NDK_MR_FLAG_ALLOW_LOCAL_WRITE) == 0) {
            return STATUS_INVALID_PARAMETER_MIX;
        }
        busy = true;
        requestStarted();
        adapter.firmware.registerMemory(pd.number, buffer, length, access(flags), (status, mr) -> {
            busy = false;
            if (status == STATUS_SUCCESS) {
                hw = mr;
                if (adapter.recorder != null) {
                    adapter.recorder.mrRegistered(adapter.now(), pd, this, buffer, length, flags);
                }
            }
            requestDone();
            requestCompletion.requestCompletion(requestContext, status);
        });
        return STATUS_PENDING;
    }

    /**
     * {@code NdkDeregisterMr}: undoes the registration (a firmware command): {@code STATUS_PENDING}, or
     * {@code STATUS_INVALID_PARAMETER} when the MR is not registered.
     */
    public int deregisterMr(NdkCallbacks.RequestCompletion requestCompletion, Object requestContext) {
        checkUsable();
        if (hw == null || busy) {
            return STATUS_INVALID_PARAMETER;
        }
        MemoryRegion mr = hw;
        busy = true;
        requestStarted();
        adapter.firmware.deregisterMemory(mr, (status, none) -> {
            busy = false;
            if (status == STATUS_SUCCESS) {
                hw = null;
            }
            requestDone();
            requestCompletion.requestCompletion(requestContext, status);
        });
        return STATUS_PENDING;
    }

    /** {@code NdkGetLocalTokenFromMr}: the token for local SGEs (0 before registration). */
    public int getLocalToken() {
        return hw == null ? 0 : hw.lkey();
    }

    /** {@code NdkGetRemoteTokenFromMr}: the token a peer uses in RDMA WRITE and READ (0 before registration). */
    public int getRemoteToken() {
        return hw == null ? 0 : hw.rkey();
    }

    /** True while registered. */
    public boolean isRegistered() {
        return hw != null;
    }

    private static int access(int flags) {
        int a = 0;
        if ((flags & NDK_MR_FLAG_ALLOW_LOCAL_WRITE) != 0) {
            a |= AccessFlags.LOCAL_WRITE;
        }
        if ((flags & NDK_MR_FLAG_ALLOW_REMOTE_READ) != 0) {
            a |= AccessFlags.REMOTE_READ;
        }
        if ((flags & REMOTE_WRITE_BIT) != 0) {
            a |= AccessFlags.REMOTE_WRITE;
        }
        if ((flags & NDK_MR_FLAG_RDMA_READ_SINK) != 0) {
            a |= AccessFlags.READ_SINK;
        }
        return a;
    }

    @Override
    void teardown(Runnable done) {
        if (hw == null) {
            done.run();
            return;
        }
        adapter.firmware.deregisterMemory(hw, (status, none) -> {
            hw = null;
            done.run();
        });
    }

    @Override
    String describe() {
        return "NDK MR" + (hw == null ? "" : " key 0x" + Integer.toHexString(hw.key())) + " of "
                + adapter.driver().fullName();
    }
}
