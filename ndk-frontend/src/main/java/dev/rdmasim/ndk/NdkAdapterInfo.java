package dev.rdmasim.ndk;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;

/**
 * {@code NDK_ADAPTER_INFO} (ndkinfo.h), every field in header order, as {@code NdkQueryAdapterInfo}
 * returns it. The values come from the adapter's profile ({@code ndk.*} parameters, see
 * docs/profiles.md), so a sweep that changes a limit changes what the consumer is told.
 */
public final class NdkAdapterInfo {
    /** {@code sizeof(NDK_ADAPTER_INFO)} on x64: 0x68 bytes (SIZE_T fields 8-byte aligned). */
    public static final int SIZE = 0x68;
    /** NDKPI 1.2 (Windows Server 2012 R2): the version that added {@code NDK_OP_FLAG_DEFER}. */
    public static final int VERSION_MAJOR = 1;
    public static final int VERSION_MINOR = 2;

    public final int versionMajor;
    public final int versionMinor;
    public final long vendorId;
    public final long deviceId;
    public final long maxRegistrationSize;
    public final long maxWindowSize;
    public final long frmrPageCount;
    public final long maxInitiatorRequestSge;
    public final long maxReceiveRequestSge;
    public final long maxReadRequestSge;
    public final long maxTransferLength;
    public final long maxInlineDataSize;
    public final long maxInboundReadLimit;
    public final long maxOutboundReadLimit;
    public final long maxReceiveQueueDepth;
    public final long maxInitiatorQueueDepth;
    public final long maxSrqDepth;
    public final long maxCqDepth;
    public final long largeRequestThreshold;
    public final long maxCallerData;
    public final long maxCalleeData;
    public final long adapterFlags;
    public final int rdmaTechnology;

    NdkAdapterInfo(Profile p) {
        versionMajor = VERSION_MAJOR;
        versionMinor = VERSION_MINOR;
        vendorId = p.getLong(NDK_VENDOR_ID);
        deviceId = p.getLong(NDK_DEVICE_ID);
        maxRegistrationSize = p.getLong(NDK_MAX_REGISTRATION_SIZE);
        maxWindowSize = p.getLong(NDK_MAX_WINDOW_SIZE);
        frmrPageCount = p.getLong(NDK_FRMR_PAGE_COUNT);
        maxInitiatorRequestSge = p.getLong(NDK_MAX_INITIATOR_REQUEST_SGE);
        maxReceiveRequestSge = p.getLong(NDK_MAX_RECEIVE_REQUEST_SGE);
        maxReadRequestSge = p.getLong(NDK_MAX_READ_REQUEST_SGE);
        maxTransferLength = p.getLong(NDK_MAX_TRANSFER_LENGTH);
        maxInlineDataSize = p.getLong(NDK_MAX_INLINE_DATA_SIZE);
        maxInboundReadLimit = p.getLong(NDK_MAX_INBOUND_READ_LIMIT);
        maxOutboundReadLimit = p.getLong(NDK_MAX_OUTBOUND_READ_LIMIT);
        maxReceiveQueueDepth = p.getLong(NDK_MAX_RECEIVE_QUEUE_DEPTH);
        maxInitiatorQueueDepth = p.getLong(NDK_MAX_INITIATOR_QUEUE_DEPTH);
        maxSrqDepth = p.getLong(NDK_MAX_SRQ_DEPTH);
        maxCqDepth = p.getLong(NDK_MAX_CQ_DEPTH);
        largeRequestThreshold = p.getLong(NDK_LARGE_REQUEST_THRESHOLD);
        maxCallerData = p.getLong(NDK_MAX_CALLER_DATA);
        maxCalleeData = p.getLong(NDK_MAX_CALLEE_DATA);
        adapterFlags = p.getLong(NDK_ADAPTER_FLAGS);
        rdmaTechnology = (int) (long) p.getLong(NDK_RDMA_TECHNOLOGY);
    }

    /** True if {@code AdapterFlags} has every bit of {@code flag}. */
    public boolean has(int flag) {
        return (adapterFlags & flag) == flag;
    }

    @Override
    public String toString() {
        return "NDK_ADAPTER_INFO{Version=" + versionMajor + "." + versionMinor
                + ", VendorId=0x" + Long.toHexString(vendorId) + ", DeviceId=0x" + Long.toHexString(deviceId)
                + ", MaxRegistrationSize=" + maxRegistrationSize + ", MaxWindowSize=" + maxWindowSize
                + ", FRMRPageCount=" + frmrPageCount + ", MaxInitiatorRequestSge=" + maxInitiatorRequestSge
                + ", MaxReceiveRequestSge=" + maxReceiveRequestSge + ", MaxReadRequestSge=" + maxReadRequestSge
                + ", MaxTransferLength=" + maxTransferLength + ", MaxInlineDataSize=" + maxInlineDataSize
                + ", MaxInboundReadLimit=" + maxInboundReadLimit + ", MaxOutboundReadLimit=" + maxOutboundReadLimit
                + ", MaxReceiveQueueDepth=" + maxReceiveQueueDepth + ", MaxInitiatorQueueDepth="
                + maxInitiatorQueueDepth + ", MaxSrqDepth=" + maxSrqDepth + ", MaxCqDepth=" + maxCqDepth
                + ", LargeRequestThreshold=" + largeRequestThreshold + ", MaxCallerData=" + maxCallerData
                + ", MaxCalleeData=" + maxCalleeData + ", AdapterFlags=0x" + Long.toHexString(adapterFlags)
                + ", RdmaTechnology=" + rdmaTechnology + "}";
    }
}
