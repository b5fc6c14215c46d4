package dev.rdmasim.traces.replay;

import dev.rdmasim.ndk.NdkConnector;
import dev.rdmasim.ndk.NdkQp;

/** A QP, its CQs and the connector that connected it. */
final class QpEntry {
    final String name;
    final int host;
    NdkQp qp;
    String icq;
    String rcq;
    NdkConnector connector;
    /** Its initiator CQ is polled automatically (its completions are owed before the replay may stop). */
    boolean icqAuto;

    QpEntry(String name, int host) {
        this.name = name;
        this.host = host;
    }
}
