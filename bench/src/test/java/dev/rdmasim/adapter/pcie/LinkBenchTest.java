package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LinkBenchTest {
    /**
     * Each invocation hands over its TLPs with the serializer never idle (the sender keeps the credits full), and
     * taking them late or in an event each puts the same bytes on the wire by the same instant.
     */
    @Test
    void eachInvocationCarriesItsTlpsAtTheLinksRateLateOrNot() {
        long[] wire = new long[2];
        long end = 0;
        for (int i = 0; i < 2; i++) {
            LinkBench b = new LinkBench();
            b.late = i == 0;
            b.setUp();
            long t = 0;
            for (int k = 0; k < 4; k++) {
                t = b.tlps();
            }
            assertThat(b.received()).isBetween(4L * LinkBench.OPS, 4L * LinkBench.OPS + LinkBench.CREDITS);
            assertThat(b.busyFraction()).as("serializer busy").isGreaterThan(0.999);
            assertThat(b.payloadBytes()).isGreaterThanOrEqualTo(b.received() * LinkBench.PAYLOAD);
            end = Math.max(end, t);
            if (i == 1) {
                wire[0] = late.wireBytesAt(end);
                wire[1] = b.wireBytesAt(end);
            } else {
                late = b;
            }
        }
        assertThat(wire[0]).as("bytes on the wire by the same instant").isEqualTo(wire[1]).isPositive();
    }

    private LinkBench late;
}
