package dev.rdmasim.adapter.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProfileTest {
    private final Profile base = Profile.defaults();

    @Test
    void defaultsHaveTheDocumentedValues() {
        assertThat(base.name()).isEqualTo("default");
        assertThat(base.getInt(Parameters.PCIE_MPS)).isEqualTo(256);
        assertThat(base.getLong(Parameters.PCIE_HOST_READ_LATENCY)).isEqualTo(412_000L);
        assertThat(base.getLong(Parameters.LINK_RATE)).isEqualTo(100_000_000_000L);
        assertThat(base.getLong(Parameters.NIC_CLOCK)).isEqualTo(500_000_000L);
        assertThat(base.getBoolean(Parameters.PCIE_ADDR64)).isTrue();
        assertThat(base.getDouble(Parameters.LINK_DROP_PROBABILITY)).isZero();
        assertThat(base.getString(Parameters.NIC_CACHE_REPLACEMENT)).isEqualTo("lru");
        assertThat(base.getInt(Parameters.TRANSPORT_MAX_UNACKED_PSNS)).isEqualTo(128);
        assertThat(base.getInt(Parameters.QP_INLINE_DATA_SIZE)).isEqualTo(220);
        assertThat(base.get("pcie.mps")).isEqualTo("256B");
        assertThat(base.get("ndk.deviceId")).isEqualTo("0x1017");
        assertThat(base.get("transport.ackTimeout")).isEqualTo("67108.864us");
    }

    @Test
    void everyKeyIsUniqueDottedAndDocumented() {
        assertThat(Parameters.all()).hasSizeGreaterThan(90);
        for (Parameter<?> p : Parameters.all()) {
            assertThat(p.key()).matches("[a-z]+\\.[a-z][A-Za-z0-9]*");
            assertThat(Parameters.byKey(p.key())).isSameAs(p);
            assertThat(p.description()).isNotBlank().doesNotContain("|");
            assertThat(p.source()).isNotBlank().doesNotContain("|");
        }
        assertThat(Parameters.byKey("pcie.nope")).isNull();
    }

    @Test
    void ndkKeysFollowTheHeaderOrder() {
        List<String> ndk = Parameters.all().stream().map(Parameter::key).filter(k -> k.startsWith("ndk.")).toList();
        assertThat(ndk).containsExactly("ndk.vendorId", "ndk.deviceId", "ndk.maxRegistrationSize", "ndk.maxWindowSize",
                "ndk.frmrPageCount", "ndk.maxInitiatorRequestSge", "ndk.maxReceiveRequestSge", "ndk.maxReadRequestSge",
                "ndk.maxTransferLength", "ndk.maxInlineDataSize", "ndk.maxInboundReadLimit", "ndk.maxOutboundReadLimit",
                "ndk.maxReceiveQueueDepth", "ndk.maxInitiatorQueueDepth", "ndk.maxSrqDepth", "ndk.maxCqDepth",
                "ndk.largeRequestThreshold", "ndk.maxCallerData", "ndk.maxCalleeData", "ndk.adapterFlags",
                "ndk.rdmaTechnology");
    }

    @Test
    void withReturnsANewProfileAndLeavesTheOldOne() {
        Profile p = base.with("pcie.mps", "512").with("link.rate", "56Gb/s").with("pcie.hostReadLatency", "0.5us");
        assertThat(p.getLong(Parameters.PCIE_MPS)).isEqualTo(512);
        assertThat(p.getLong(Parameters.LINK_RATE)).isEqualTo(56_000_000_000L);
        assertThat(p.getLong(Parameters.PCIE_HOST_READ_LATENCY)).isEqualTo(500_000L);
        assertThat(base.getLong(Parameters.PCIE_MPS)).isEqualTo(256);
        assertThat(p.differencesFrom(base)).containsExactly(Map.entry("pcie.mps", "512B"),
                Map.entry("pcie.hostReadLatency", "500ns"), Map.entry("link.rate", "56Gbps"));
        assertThat(base.with(Parameters.PCIE_LANES, 8L).getInt(Parameters.PCIE_LANES)).isEqualTo(8);
        assertThat(base.withOverrides(List.of("pcie.lanes=8", " link.mtu = 4KiB ")))
                .isEqualTo(base.with("pcie.lanes", "8").with("link.mtu", "4096"));
    }

    @Test
    void unknownKeySuggestsTheClosest() {
        assertThatThrownBy(() -> base.with("pcie.mpss", "512"))
                .isInstanceOf(ProfileException.class)
                .hasMessage("unknown parameter 'pcie.mpss'; closest: pcie.mps, pcie.mrrs, pcie.gen");
        assertThatThrownBy(() -> base.with("mtu", "4096"))
                .hasMessageStartingWith("unknown parameter 'mtu'; closest: link.mtu");
        assertThatThrownBy(() -> base.get("nic.qpcCacheWay"))
                .hasMessageStartingWith("unknown parameter 'nic.qpcCacheWay'; closest: nic.qpcCacheWays");
    }

    @Test
    void badValuesNameKeyValueAndExpectedForm() {
        assertThatThrownBy(() -> base.with("pcie.mps", "300"))
                .isInstanceOf(ProfileException.class)
                .hasMessage("pcie.mps = 300: must be 128B..4KiB, power of two");
        assertThatThrownBy(() -> base.with("pcie.mps", "8KiB"))
                .hasMessage("pcie.mps = 8KiB: must be 128B..4KiB, power of two");
        assertThatThrownBy(() -> base.with("pcie.mps", "big"))
                .hasMessage("pcie.mps: 'big' is not a byte size (expected e.g. 256, 256B, 4KiB or 1MiB)");
        assertThatThrownBy(() -> base.with("link.rate", "10Gbps"))
                .hasMessage("link.rate = 10Gbps: must be 25Gbps..400Gbps");
        assertThatThrownBy(() -> base.with("link.mtu", "1500"))
                .hasMessage("link.mtu = 1500: must be 256B..4KiB, power of two");
        assertThatThrownBy(() -> base.with("pcie.readTags", "0"))
                .hasMessage("pcie.readTags = 0: must be 1..1024");
        assertThatThrownBy(() -> base.with("nic.blueflameBytes", "100"))
                .hasMessage("nic.blueflameBytes = 100: must be 64B..2KiB, multiple of 64B");
        assertThatThrownBy(() -> base.with("cq.moderationCount", "0"))
                .hasMessage("cq.moderationCount = 0: must be 1..65535");
        assertThatThrownBy(() -> base.with("nic.cacheReplacement", "plru"))
                .hasMessage("nic.cacheReplacement = plru: must be one of lru, fifo, random");
        assertThatThrownBy(() -> base.with("link.dropProbability", "1.5"))
                .hasMessage("link.dropProbability = 1.5: must be 0..1");
        assertThatThrownBy(() -> base.with("ndk.frmrPageCount", "8"))
                .hasMessage("ndk.frmrPageCount = 8: must be 16..4294967295");
        assertThatThrownBy(() -> base.with(Parameters.PCIE_MRRS, 100L))
                .hasMessage("pcie.mrrs = 100B: must be 128B..4KiB, power of two");
        assertThatThrownBy(() -> base.withOverrides(List.of("pcie.mps")))
                .hasMessage("'pcie.mps' is not key=value (e.g. pcie.mps=512)");
        assertThatThrownBy(() -> base.withOverrides(List.of("pcie.mps=512", "pcie.mps=1024")))
                .hasMessage("pcie.mps is set twice");
    }

    @Test
    void crossParameterRules() {
        assertThatThrownBy(() -> base.with("ndk.maxInlineDataSize", "512"))
                .isInstanceOf(ProfileException.class)
                .hasMessage("ndk.maxInlineDataSize (512B) needs a 560B WQE but nic.maxWqeBytes (512B); at most 476B fits");
        assertThatThrownBy(() -> base.with("qp.inlineDataSize", "477"))
                .hasMessage("qp.inlineDataSize (477B) must not exceed ndk.maxInlineDataSize (476B)");
        assertThatThrownBy(() -> base.with("nic.qpcCacheWays", "3"))
                .hasMessage("nic.qpcCacheWays (3) must divide nic.qpcCacheEntries (1024)");
        assertThatThrownBy(() -> base.with("ndk.maxInitiatorRequestSge", "31"))
                .hasMessage("ndk.maxInitiatorRequestSge (31) needs a 528B WQE but nic.maxWqeBytes (512B); at most 30 fit");
        assertThatThrownBy(() -> base.with("qp.initiatorQueueDepth", "65536"))
                .hasMessage("qp.initiatorQueueDepth (65536) must not exceed ndk.maxInitiatorQueueDepth (4096)");
        assertThatThrownBy(() -> base.with("ndk.maxInitiatorQueueDepth", "4097"))
                .hasMessage("ndk.maxInitiatorQueueDepth (4097) of nic.maxWqeBytes (512B) WQEs needs 32776 basic blocks;"
                        + " the 16-bit WQE counter allows 32768, so at most 4096 WQEs");
        assertThatThrownBy(() -> base.with("qp.receiveQueueDepth", "500"))
                .hasMessage("qp.receiveQueueDepth = 500: must be 1..4294967295, power of two");
        assertThatThrownBy(() -> base.with("transport.maxOutboundReads", "32"))
                .hasMessage("transport.maxOutboundReads (32) must not exceed ndk.maxOutboundReadLimit (16)");
        assertThatThrownBy(() -> base.with("ndk.adapterFlags", "0x25"))
                .hasMessage("ndk.adapterFlags (0x25) has unknown bits 0x20");
        assertThatThrownBy(() -> base.with("nic.wqeCacheEntries", "4"))
                .hasMessage("nic.wqeCacheEntries (4) is too small: nic.wqeCacheEntries x 64 must be >= "
                        + "nic.wqeFetchMaxBytes (512B) (64 B blocks hold one WQE fetch)");
        // Related values changed together pass where one at a time would not.
        Map<String, String> both = new LinkedHashMap<>();
        both.put("nic.maxWqeBytes", "1KiB");
        both.put("ndk.maxInlineDataSize", "988");
        both.put("ndk.maxInitiatorQueueDepth", "2048");
        Profile bigger = base.withOverrides(both);
        assertThat(bigger.getLong(Parameters.NDK_MAX_INLINE_DATA_SIZE)).isEqualTo(988);
        assertThatThrownBy(() -> bigger.with("ndk.maxInlineDataSize", "989"))
                .hasMessage("ndk.maxInlineDataSize (989B) needs a 1040B WQE but nic.maxWqeBytes (1KiB); at most 988B fits");
    }

    @Test
    void everyRuleHoldsForTheDefaults() {
        for (Rule rule : Parameters.RULES) {
            assertThat(rule.check().apply(base)).as(rule.description()).isNull();
            assertThat(rule.description()).isNotBlank().doesNotContain("|");
        }
    }

    @Test
    void describeIsDeterministicAndMarksChanges() {
        Profile p = base.with("pcie.lanes", "8").named("x8", "eight lanes");
        String text = p.describe();
        assertThat(text).isEqualTo(base.with("pcie.lanes", "8").named("x8", "eight lanes").describe());
        assertThat(text).startsWith("profile x8: eight lanes\n  pcie.gen ");
        assertThat(text).containsPattern("\n  pcie\\.lanes {17}= 8  \\(default 16\\)\n");
        assertThat(text).containsPattern("\n  pcie\\.mps {19}= 256B\n");
        assertThat(text.lines().count()).isEqualTo(Parameters.all().size() + 1);
        assertThat(text.lines().filter(l -> l.contains("(default ")).count()).isEqualTo(1);
    }

    @Test
    void getIntRejectsValuesThatDoNotFit() {
        assertThatThrownBy(() -> base.getInt(Parameters.NDK_MAX_REGISTRATION_SIZE))
                .hasMessage("ndk.maxRegistrationSize = 128TiB does not fit an int");
    }
}
