package dev.rdmasim.ndk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The NTSTATUS and flag values are those of ntstatus.h and ndkpi.h (the digest's tables), under their names. */
class NdkVocabularyTest {
    @Test
    void statusesHaveTheirHeaderValuesAndNames() {
        Map<String, Integer> expected = Map.ofEntries(
                Map.entry("STATUS_SUCCESS", 0x0), Map.entry("STATUS_PENDING", 0x103),
                Map.entry("STATUS_BUFFER_OVERFLOW", 0x80000005), Map.entry("STATUS_DEVICE_BUSY", 0x80000011),
                Map.entry("STATUS_NO_MORE_ENTRIES", 0x8000001A), Map.entry("STATUS_ACCESS_VIOLATION", 0xC0000005),
                Map.entry("STATUS_INVALID_PARAMETER", 0xC000000D), Map.entry("STATUS_BUFFER_TOO_SMALL", 0xC0000023),
                Map.entry("STATUS_INVALID_PARAMETER_MIX", 0xC0000030), Map.entry("STATUS_DATA_OVERRUN", 0xC000003C),
                Map.entry("STATUS_SHARING_VIOLATION", 0xC0000043),
                Map.entry("STATUS_INSUFFICIENT_RESOURCES", 0xC000009A), Map.entry("STATUS_IO_TIMEOUT", 0xC00000B5),
                Map.entry("STATUS_NOT_SUPPORTED", 0xC00000BB), Map.entry("STATUS_INTERNAL_ERROR", 0xC00000E5),
                Map.entry("STATUS_INVALID_PARAMETER_4", 0xC00000F2), Map.entry("STATUS_CANCELLED", 0xC0000120),
                Map.entry("STATUS_REMOTE_RESOURCES", 0xC000013D), Map.entry("STATUS_INVALID_ADDRESS", 0xC0000141),
                Map.entry("STATUS_INVALID_DEVICE_STATE", 0xC0000184),
                Map.entry("STATUS_INVALID_BUFFER_SIZE", 0xC0000206), Map.entry("STATUS_ADDRESS_ALREADY_EXISTS", 0xC000020A),
                Map.entry("STATUS_CONNECTION_DISCONNECTED", 0xC000020C),
                Map.entry("STATUS_CONNECTION_REFUSED", 0xC0000236), Map.entry("STATUS_CONNECTION_INVALID", 0xC000023A),
                Map.entry("STATUS_CONNECTION_ACTIVE", 0xC000023B), Map.entry("STATUS_CONNECTION_ABORTED", 0xC0000241),
                Map.entry("STATUS_IMPLEMENTATION_LIMIT", 0xC000042B));
        expected.forEach((name, value) -> {
            assertThat(NtStatus.valueOf(name)).as(name).isEqualTo(value);
            assertThat(NtStatus.name(value)).isEqualTo(name);
        });
        assertThat(NtStatus.hex(NtStatus.STATUS_CANCELLED)).isEqualTo("0xC0000120");
        assertThat(NtStatus.name(0xC0000001)).isEqualTo("0xC0000001");
        assertThat(NtStatus.NT_SUCCESS(NtStatus.STATUS_PENDING)).isTrue();
        assertThat(NtStatus.NT_SUCCESS(NtStatus.STATUS_BUFFER_OVERFLOW)).isFalse();
        assertThat(NtStatus.NT_SUCCESS(NtStatus.STATUS_CANCELLED)).isFalse();
    }

    @Test
    void flagsHaveTheirHeaderValues() {
        assertThat(NdkOpFlags.NDK_OP_FLAG_SILENT_SUCCESS).isEqualTo(0x001);
        assertThat(NdkOpFlags.NDK_OP_FLAG_READ_FENCE).isEqualTo(0x002);
        assertThat(NdkOpFlags.NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT).isEqualTo(0x004);
        assertThat(NdkOpFlags.NDK_OP_FLAG_ALLOW_REMOTE_READ).isEqualTo(0x008);
        assertThat(NdkOpFlags.NDK_OP_FLAG_ALLOW_LOCAL_WRITE).isEqualTo(0x010);
        assertThat(NdkOpFlags.NDK_OP_FLAG_ALLOW_REMOTE_WRITE).isEqualTo(0x030);
        assertThat(NdkOpFlags.NDK_OP_FLAG_INLINE).isEqualTo(0x040);
        assertThat(NdkOpFlags.NDK_OP_FLAG_RDMA_READ_SINK).isEqualTo(0x080);
        assertThat(NdkOpFlags.NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE).isEqualTo(0x100);
        assertThat(NdkOpFlags.NDK_OP_FLAG_DEFER).isEqualTo(0x200);
        assertThat(NdkOpFlags.describe(0x30 | 0x1)).isEqualTo("NDK_OP_FLAG_SILENT_SUCCESS|NDK_OP_FLAG_ALLOW_REMOTE_WRITE");
        assertThat(NdkOpFlags.describe(0x10)).isEqualTo("NDK_OP_FLAG_ALLOW_LOCAL_WRITE");
        assertThat(NdkOpFlags.describe(0x8000)).isEqualTo("0x8000");
        assertThat(NdkOpFlags.describe(0)).isEqualTo("0");
        assertThat(NdkOpFlags.valueOf("INLINE")).isEqualTo(0x40);
        assertThat(NdkOpFlags.valueOf("NOPE")).isEqualTo(-1);
    }

    @Test
    void theSmallerValueSetsHaveTheirHeaderValues() {
        assertThat(NdkConstants.NDK_CQ_NOTIFY_ERRORS).isZero();
        assertThat(NdkConstants.NDK_CQ_NOTIFY_ANY).isEqualTo(1);
        assertThat(NdkConstants.NDK_CQ_NOTIFY_SOLICITED).isEqualTo(2);
        assertThat(NdkConstants.NDK_MR_FLAG_ALLOW_REMOTE_WRITE).isEqualTo(0x5);
        assertThat(NdkConstants.NDK_MR_FLAG_RDMA_READ_SINK).isEqualTo(0x8);
        assertThat(NdkConstants.NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED).isEqualTo(0x10000);
        assertThat(NdkConstants.NdkRoCEv2).isEqualTo(4);
        assertThat(NdkConstants.NdkObjectTypeSrq).isEqualTo(10);
        assertThat(NdkOperationType.NdkOperationTypeReceiveAndInvalidate).isEqualTo(0x8001);
        assertThat(NdkOperationType.name(NdkOperationType.NdkOperationTypeWrite)).isEqualTo("Write");
        assertThat(new NdkAddress(0x0A000001, 80).toString()).isEqualTo("10.0.0.1:80");
    }
}
