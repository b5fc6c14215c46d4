package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.format.CqeSyndrome;

/**
 * CQE error syndromes to the NTSTATUS an {@link NdkResult} carries. One table, documented in
 * docs/ndk.md:
 *
 * <table>
 * <tr><th>syndrome</th><th>receive completion</th><th>initiator completion</th></tr>
 * <tr><td>local length</td><td>BUFFER_OVERFLOW (the send did not fit)</td><td>DATA_OVERRUN</td></tr>
 * <tr><td>local protection, local access, remote access</td><td colspan=2>ACCESS_VIOLATION</td></tr>
 * <tr><td>flushed</td><td colspan=2>CANCELLED</td></tr>
 * <tr><td>transport retries, RNR retries exhausted</td><td colspan=2>IO_TIMEOUT</td></tr>
 * <tr><td>remote invalid request, remote operation</td><td colspan=2>REMOTE_RESOURCES (ND's remote error)</td></tr>
 * <tr><td>local QP operation, bad response, other</td><td colspan=2>INTERNAL_ERROR</td></tr>
 * </table>
 */
final class StatusMap {
    private StatusMap() {
    }

    static int completionStatus(int syndrome, boolean receive) {
        return switch (syndrome) {
            case 0 -> STATUS_SUCCESS;
            case CqeSyndrome.LOCAL_LENGTH -> receive ? STATUS_BUFFER_OVERFLOW : STATUS_DATA_OVERRUN;
            case CqeSyndrome.LOCAL_PROT, CqeSyndrome.LOCAL_ACCESS, CqeSyndrome.REMOTE_ACCESS -> STATUS_ACCESS_VIOLATION;
            case CqeSyndrome.WR_FLUSH -> STATUS_CANCELLED;
            case CqeSyndrome.TRANSPORT_RETRY_EXC, CqeSyndrome.RNR_RETRY_EXC -> STATUS_IO_TIMEOUT;
            case CqeSyndrome.REMOTE_INVAL_REQ, CqeSyndrome.REMOTE_OP -> STATUS_REMOTE_RESOURCES;
            default -> STATUS_INTERNAL_ERROR;
        };
    }
}
