package dev.rdmasim.adapter.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ProfilesTest {

    static Stream<String> names() {
        return Profiles.names().stream();
    }

    @ParameterizedTest
    @MethodSource("names")
    void everyShippedProfileLoadsAndSatisfiesEveryRule(String name) {
        Profile p = Profiles.load(name);
        assertThat(p.name()).isEqualTo(name);
        assertThat(p.description()).isNotBlank().doesNotStartWith("profile from");
        for (Rule rule : Parameters.RULES) {
            assertThat(rule.check().apply(p)).as(name + ": " + rule.description()).isNull();
        }
        assertThat(Profiles.resolve(name)).isEqualTo(p);
        assertThat(p.describe()).isEqualTo(Profiles.load(name).describe());
    }

    @Test
    void shippedProfilesHaveTheirPublishedFigures() {
        assertThat(Profiles.load("default").differencesFrom(Profile.defaults())).isEmpty();
        assertThat(Profiles.load("cx5-like").differencesFrom(Profile.defaults())).isEmpty();
        Profile cx3 = Profiles.load("cx3-like");
        assertThat(cx3.getInt(Parameters.PCIE_LANES)).isEqualTo(8);
        assertThat(cx3.getLong(Parameters.LINK_RATE)).isEqualTo(56_000_000_000L);
        assertThat(cx3.getInt(Parameters.NIC_MAX_OUTSTANDING_PER_QP)).isEqualTo(16);
        assertThat(cx3.get("ndk.deviceId")).isEqualTo("0x1003");
        Profile cib = Profiles.load("connectib-like");
        assertThat(cib.differencesFrom(Profile.defaults()))
                .containsExactly(Map.entry("link.rate", "56Gbps"), Map.entry("link.fec", "none"),
                        Map.entry("ndk.deviceId", "0x1011"));
        Profile cx6 = Profiles.load("cx6-like");
        assertThat(cx6.differencesFrom(Profile.defaults())).containsExactly(Map.entry("pcie.gen", "4"),
                Map.entry("link.rate", "200Gbps"), Map.entry("link.fec", "rs544"), Map.entry("ndk.deviceId", "0x101B"));
    }

    /** Every YAML file in the resource folder is listed by names(), and each listed name has a file. */
    @Test
    void namesMatchTheResourceFolder() throws IOException {
        Path dir = Path.of("src/main/resources/dev/rdmasim/adapter/profiles");
        TreeSet<String> files = new TreeSet<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(f -> files.add(f.getFileName().toString().replaceFirst("\\.yaml$", "")));
        }
        assertThat(files).containsExactlyInAnyOrderElementsOf(Profiles.names());
    }

    @Test
    void unknownNameListsTheValidOnes() {
        assertThatThrownBy(() -> Profiles.load("cx7-like"))
                .isInstanceOf(ProfileException.class)
                .hasMessage("unknown profile 'cx7-like'; valid: default, cx3-like, connectib-like, cx5-like, cx6-like"
                        + " (or a path to a .yaml file)");
        assertThatThrownBy(() -> Profiles.resolve("cx7"))
                .hasMessageStartingWith("unknown profile 'cx7'; valid: default, cx3-like");
    }

    @Test
    void extendsTakesTheBaseAndAppliesDifferences() {
        Profile p = Profiles.parse("mine.yaml", """
                description: cx3 with a faster port
                extends: cx3-like
                link.rate: 100G
                pcie:
                  mps: 512
                """);
        assertThat(p.name()).isEqualTo("mine");
        assertThat(p.description()).isEqualTo("cx3 with a faster port");
        assertThat(p.differencesFrom(Profiles.load("cx3-like")))
                .containsExactly(Map.entry("pcie.mps", "512B"), Map.entry("link.rate", "100Gbps"));
        Profile noBase = Profiles.parse("plain.yaml", "nic.clock: 1GHz\n");
        assertThat(noBase.differencesFrom(Profile.defaults())).containsExactly(Map.entry("nic.clock", "1GHz"));
        assertThat(noBase.description()).isEqualTo("profile from plain.yaml");
        assertThat(Profiles.parse("empty.yaml", "").differencesFrom(Profile.defaults())).isEmpty();
    }

    @Test
    void yamlErrorsNameTheFileAndLine() {
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", """
                extends: default
                pcie:
                  mps: 512
                  mpss: 512
                """))
                .isInstanceOf(ProfileException.class)
                .hasMessage("bad.yaml line 4: unknown parameter 'pcie.mpss'; closest: pcie.mps, pcie.mrrs, pcie.gen");
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", "link.rate: 10Gbps\n"))
                .hasMessage("bad.yaml line 1: link.rate = 10Gbps: must be 25Gbps..400Gbps");
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", "\n\nlink.rate: fast\n"))
                .hasMessage("bad.yaml line 3: link.rate: 'fast' is not a rate (expected e.g. 100Gbps, 56Gb/s or 25G)");
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", "nic.qpcCacheWays: 3\n"))
                .hasMessage("bad.yaml: nic.qpcCacheWays (3) must divide nic.qpcCacheEntries (1024)");
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", "extends: cx9\n"))
                .hasMessage("bad.yaml line 1: extends unknown profile 'cx9'; valid: default, cx3-like, connectib-like, "
                        + "cx5-like, cx6-like");
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", "pcie.mps: 256\npcie:\n  mps: 512\n"))
                .hasMessage("bad.yaml line 3: pcie.mps is set twice (also line 1)");
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", "pcie.mps: [256]\n"))
                .hasMessage("bad.yaml line 1: pcie.mps: a list is not a parameter value");
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", "pcie.mps:\n"))
                .hasMessage("bad.yaml line 1: pcie.mps: no value");
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", "- 1\n"))
                .hasMessage("bad.yaml line 1: expected a map of key: value");
        assertThatThrownBy(() -> Profiles.parse("bad.yaml", "a: b: c\n"))
                .hasMessageStartingWith("bad.yaml line 1: not valid YAML: ");
    }

    @Test
    void yamlScalarsKeepTheirText() {
        Profile p = Profiles.parse("t.yaml", """
                ndk.vendorId: 0x15B3
                pcie.ecrc: true
                link.dropProbability: 1e-6
                transport.ackTimeout: 1.5us
                """);
        assertThat(p.getLong(Parameters.NDK_VENDOR_ID)).isEqualTo(0x15B3);
        assertThat(p.getBoolean(Parameters.PCIE_ECRC)).isTrue();
        assertThat(p.getDouble(Parameters.LINK_DROP_PROBABILITY)).isEqualTo(1e-6);
        assertThat(p.getLong(Parameters.TRANSPORT_ACK_TIMEOUT)).isEqualTo(1_500_000L);
    }

    @Test
    void userFilesExtendBuiltInsAndOtherFiles(@TempDir Path dir) throws IOException {
        Path base = dir.resolve("base.yaml");
        Files.writeString(base, "description: my base\nextends: cx6-like\npcie.mrrs: 1KiB\n");
        Path sub = dir.resolve("sub.yaml");
        Files.writeString(sub, "extends: base.yaml\nlink.mtu: 4KiB\n");
        Profile p = Profiles.fromFile(sub);
        assertThat(p.name()).isEqualTo("sub");
        assertThat(p.differencesFrom(Profiles.load("cx6-like")))
                .containsExactly(Map.entry("pcie.mrrs", "1KiB"), Map.entry("link.mtu", "4KiB"));
        assertThat(Profiles.resolve(sub.toString())).isEqualTo(p);

        Files.writeString(base, "extends: sub.yaml\n");
        assertThatThrownBy(() -> Profiles.fromFile(sub)).hasMessage(sub + ": 'extends' forms a cycle");

        Path missing = dir.resolve("missing.yaml");
        assertThatThrownBy(() -> Profiles.fromFile(missing))
                .hasMessage(missing + ": cannot read profile file (NoSuchFileException: " + missing + ")");
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "description: x\n\nnic.bogus: 1\n");
        assertThatThrownBy(() -> Profiles.fromFile(bad)).hasMessageStartingWith(bad + " line 3: unknown parameter 'nic.bogus'");
    }
}
