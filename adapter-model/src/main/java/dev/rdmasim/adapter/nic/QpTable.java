package dev.rdmasim.adapter.nic;

/** The firmware's table of QPs as the blocks see it: lookup by QP number. */
interface QpTable {
    /** The QP, which must exist. */
    Qp qp(int qpn);

    /** The QP, or null for a number no QP has (a frame for a QP that was destroyed, say). */
    Qp qpOrNull(int qpn);
}
