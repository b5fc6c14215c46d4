package dev.rdmasim.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Whole runs: a bound made small enough to hold the rate down is what the point names as its limit, with the
 * fraction of the measured time it was full; at the defaults the link is the limit; a latency test waits on round
 * trips. Each bound's fraction is over the measured part, as busy fractions are.
 */
class LimitTest {
    @ParameterizedTest(name = "{0} -s {1} {2}")
    @CsvSource({
        "write_bw, 65536, nic.txSlots=2,             BOUND,   nicA.tx,       transmit slots",
        "write_bw, 65536, pcie.readTags=2,           BOUND,   nicA.pcie.dma, PCIe read tags",
        "write_bw, 65536, transport.maxUnackedPsns=4, BOUND,  nicA.req,      PSN window",
        "write_bw, 65536, nic.txSlots=128,           BLOCK,   wire.aToB,     ",
        "write_lat, 2,    nic.txSlots=128,           LATENCY, ,              ",
        "read_bw,  4096,  transport.maxInboundReads=1;ndk.maxInboundReadLimit=1, BOUND, nicA.req, outbound READ limit (ORD)",
    })
    void theLimitingBoundIsNamed(String test, String size, String set, Limit.Kind kind, String block, String what) {
        SweepSpec.Builder spec = SweepSpec.perf(test, List.of("-s", size, "-n", "300"));
        for (String one : set.split(";")) {
            spec.param(one);
        }
        SweepSpec s = spec.build();
        PointResult r = PointRunner.run(s.points().get(0));
        Limit limit = r.limit();
        assertThat(limit.kind()).as(limit.describe()).isEqualTo(kind);
        if (block != null) {
            assertThat(limit.block()).isEqualTo(block);
        }
        assertThat(limit.what()).isEqualTo(what);
        if (kind == Limit.Kind.BOUND) {
            assertThat(limit.fraction()).isGreaterThan(0.9);
            assertThat(limit.describe()).isEqualTo(block + ": " + what + " full " + Limit.percent(limit.fraction())
                    + " of the time");
            assertThat(r.bottleneck().value()).as("no block busy half the time").isLessThan(Limit.LIMITING);
        }
        assertThat(r.bounds()).allSatisfy(b -> assertThat(b.fraction()).isBetween(0.0, 1.0));
        assertThat(r.bounds()).extracting(PointResult.Bound::key).doesNotHaveDuplicates()
                .contains("nicA.tx.fullFraction", "nicA.pcie.dma.readTagsFullFraction",
                        "nicA.req.psnWindowFullFraction", "nicA.fetch.prefetchFullFraction", "wire.a.buffersFullFraction",
                        "hostA.cpu.queueFullFraction", "nicA.pcie.down.postedFullFraction", "nicB.rsp.irdFullFraction",
                        "nicA.cqe.fullFraction");
        if (test.equals("read_bw")) {
            // One READ at a time was agreed: the requester holds the next back (ORD) while the responder's only
            // IRD entry answers the current one, so both ends are at their limit most of the time.
            assertThat(r.bounds()).filteredOn(x -> x.key().equals("nicB.rsp.irdFullFraction"))
                    .singleElement().satisfies(x -> assertThat(x.fraction()).isGreaterThan(0.5));
        }
    }

    /**
     * Doorbell batching on one QP: a batched WQE is not carried by its doorbell, so the adapter reads it from the
     * ring, and one QP has at most two reads' worth of blocks in flight or staged. That, not latency, holds the
     * rate: the point names the per-QP fetch reads.
     */
    @org.junit.jupiter.api.Test
    void batchedDoorbellsOnOneQpAreLimitedByItsFetchReads() {
        SweepSpec s = SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "3200", "-l", "16")).build();
        Limit limit = PointRunner.run(s.points().get(0)).limit();
        assertThat(limit.kind()).as(limit.describe()).isEqualTo(Limit.Kind.BOUND);
        assertThat(limit.block()).isEqualTo("nicA.fetch");
        assertThat(limit.what()).isEqualTo("per-QP fetch reads");
        assertThat(limit.fraction()).isGreaterThan(0.9);
    }
}
