package dev.rdmasim.traces.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Profile;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class PerfOptionsTest {
    private static final Profile P = Profile.defaults();

    @Test
    void defaultsComeFromPerftestAndTheProfile() {
        PerfOptions bw = PerfOptions.builder(PerfTest.WRITE_BW, P).build();
        assertThat(bw.sizes()).containsExactly(65536);
        assertThat(bw.iterations()).isEqualTo(5000);
        assertThat(bw.txDepth()).isEqualTo(P.getInt(dev.rdmasim.adapter.config.Parameters.QP_INITIATOR_QUEUE_DEPTH));
        assertThat(bw.rxDepth()).isEqualTo(P.getInt(dev.rdmasim.adapter.config.Parameters.QP_RECEIVE_QUEUE_DEPTH));
        assertThat(bw.inlineSize()).isEqualTo(P.getInt(dev.rdmasim.adapter.config.Parameters.QP_INLINE_DATA_SIZE));
        assertThat(bw.mtu()).isEqualTo(P.getInt(dev.rdmasim.adapter.config.Parameters.LINK_MTU));
        assertThat(bw.qps()).isEqualTo(1);
        assertThat(bw.postList()).isEqualTo(1);
        assertThat(bw.cqMod()).isEqualTo(PerfOptions.defaultCqMod(bw.txDepth(), 1));
        PerfOptions lat = PerfOptions.builder(PerfTest.READ_LAT, P).build();
        assertThat(lat.sizes()).containsExactly(2);
        assertThat(lat.iterations()).isEqualTo(1000);
        assertThat(lat.inlineSize()).as("reads carry no inline data").isZero();
        assertThat(PerfOptions.builder(PerfTest.SEND_BW, P).allSizes().build().sizes())
                .hasSize(23).startsWith(2, 4, 8).endsWith(4 << 20, 8 << 20);
        assertThat(PerfOptions.builder(PerfTest.WRITE_BW, P).mtu(4096).build().effectiveProfile().get("link.mtu"))
                .isEqualTo("4KiB");
    }

    @Test
    void cqModerationFitsTheDepthAndThePostList() {
        assertThat(PerfOptions.defaultCqMod(128, 1)).isEqualTo(64);
        assertThat(PerfOptions.defaultCqMod(512, 1)).isEqualTo(100);
        assertThat(PerfOptions.defaultCqMod(1, 1)).isEqualTo(1);
        assertThat(PerfOptions.defaultCqMod(3, 1)).isEqualTo(2);
        assertThat(PerfOptions.defaultCqMod(128, 16)).isEqualTo(16);
    }

    private static void rejects(PerfTest test, UnaryOperator<PerfOptions.Builder> set, String message) {
        assertThatThrownBy(() -> set.apply(PerfOptions.builder(test, P)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void impossibleFlagsAreRejectedByName() {
        rejects(PerfTest.WRITE_BW, b -> b.size(0), "-s must be between 1 and 8388608 bytes, got 0");
        rejects(PerfTest.WRITE_BW, b -> b.size((8 << 20) + 1), "-s must be");
        rejects(PerfTest.WRITE_BW, b -> b.txDepth(0), "-t must be between 1 and");
        rejects(PerfTest.WRITE_BW, b -> b.txDepth(5000), "-t must be between 1 and ndk.maxInitiatorQueueDepth 4096");
        rejects(PerfTest.SEND_BW, b -> b.rxDepth(0), "-r must be");
        rejects(PerfTest.WRITE_BW, b -> b.mtu(300), "-m must be one of 256, 512, 1024, 2048, 4096, got 300");
        rejects(PerfTest.WRITE_BW, b -> b.mtu(8192), "-m must be");
        rejects(PerfTest.WRITE_BW, b -> b.iterations(0), "-n must be at least 1");
        rejects(PerfTest.SEND_LAT, b -> b.iterations(3), "-n must be at least 4");
        rejects(PerfTest.WRITE_BW, b -> b.inlineSize(100_000), "-I must be between 0 and ndk.maxInlineDataSize");
        rejects(PerfTest.READ_BW, b -> b.inlineSize(64), "-I must be 0 for read tests");
        rejects(PerfTest.WRITE_BW, b -> b.qps(0), "-q must be between 1 and");
        rejects(PerfTest.WRITE_LAT, b -> b.qps(2), "-q must be 1 for latency tests");
        rejects(PerfTest.WRITE_LAT, b -> b.postList(2), "-l must be 1 for latency tests");
        rejects(PerfTest.WRITE_BW, b -> b.postList(3).iterations(1000), "-n must be a multiple of the post list -l 3");
        rejects(PerfTest.WRITE_BW, b -> b.postList(256).txDepth(128).iterations(1024), "-l must be between 1 and the depth");
        rejects(PerfTest.WRITE_BW, b -> b.postList(16).cqMod(3).iterations(1024), "-Q must be a divisor of the post list");
        rejects(PerfTest.WRITE_BW, b -> b.cqMod(200), "-Q must be between 1 and the depth -t 128");
        assertThatThrownBy(() -> PerfTest.fromLabel("write_bandwidth")).hasMessageContaining(
                "unknown test 'write_bandwidth': expected one of send_bw, write_bw, read_bw, send_lat, write_lat, read_lat");
        assertThatThrownBy(() -> PerfOptions.builder(PerfTest.WRITE_BW, P).sizes(List.of()).build())
                .hasMessageContaining("no message sizes");
    }
}
