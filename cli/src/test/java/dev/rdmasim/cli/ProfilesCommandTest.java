package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rdmasim.adapter.config.Parameter;
import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfilesCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The line of the text listing that shows {@code key}, found by its key column. */
    private static String lineOf(String out, String key) {
        List<String> hits = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.length() > 2 && line.substring(2).startsWith(key + " ")) {
                hits.add(line);
            }
        }
        assertThat(hits).as("lines for %s", key).hasSize(1);
        return hits.get(0);
    }

    @Test
    void listsEveryShippedProfileWithItsDescriptionInOrder() {
        Cli r = Cli.run("profiles");
        assertThat(r.code()).as(r.err()).isZero();
        String[] lines = r.out().split("\n");
        List<String> names = Profiles.names();
        for (int i = 0; i < names.size(); i++) {
            Profile p = Profiles.load(names.get(i));
            assertThat(lines[i]).startsWith(p.name() + " ").endsWith(p.description());
        }
        assertThat(r.out()).contains("profiles show NAME|FILE");
    }

    @Test
    void showPrintsEveryParameterOnceWithValueUnitDescriptionAndSourceGroupedByPrefix() {
        Cli r = Cli.run("profiles", "show", "cx6-like");
        assertThat(r.code()).as(r.err()).isZero();
        Profile p = Profiles.load("cx6-like");
        Map<String, String> differing = p.differencesFrom(Profiles.load("default"));
        for (Parameter<?> par : Parameters.all()) {
            String line = lineOf(r.out(), par.key());
            String[] cols = line.substring(2).trim().split(" +", 3);
            assertThat(cols[1]).as(par.key()).isEqualTo(p.get(par.key()));
            assertThat(line).contains(par.description(), "[" + par.source() + "]");
            if (!par.unit().isEmpty()) {
                assertThat(cols[2]).as(par.key()).startsWith(par.unit());
            }
            assertThat(line.charAt(0)).as(par.key()).isEqualTo(differing.containsKey(par.key()) ? '*' : ' ');
        }
        assertThat(lineOf(r.out(), "pcie.gen")).startsWith("* pcie.gen").contains("(default: 3)");
        assertThat(lineOf(r.out(), "link.rate")).contains("200Gbps", "bit/s", "(default: 100Gbps)");
        assertThat(lineOf(r.out(), "pcie.hostReadLatency")).contains("412ns", "ps").doesNotContain("(default:");
        // Groups follow the registry: pcie first, qp last, each header once, every pcie key under its header.
        String out = r.out();
        int pcie = out.indexOf("(pcie.*)");
        int nic = out.indexOf("(nic.*)");
        int ndk = out.indexOf("(ndk.*)");
        int qp = out.indexOf("(qp.*)");
        assertThat(pcie).isPositive().isLessThan(nic);
        assertThat(nic).isLessThan(ndk);
        assertThat(ndk).isLessThan(qp);
        assertThat(out.indexOf("pcie.msixAddress")).isBetween(pcie, nic);
        assertThat(out.indexOf("  qp.inlineDataSize")).isGreaterThan(qp);
        assertThat(out).contains(differing.size() + " value(s) differ");
    }

    @Test
    void setOverridesAreShownAndMarked() {
        Cli r = Cli.run("profiles", "show", "default", "--set", "pcie.mps=512", "--set", "pcie.hostReadLatency=0.5us");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(lineOf(r.out(), "pcie.mps")).startsWith("* ").contains("512B", "(default: 256B)");
        assertThat(lineOf(r.out(), "pcie.hostReadLatency")).startsWith("* ").contains("500ns", "(default: 412ns)");
        assertThat(lineOf(r.out(), "pcie.mrrs")).startsWith("  ");
        assertThat(r.out()).contains("2 value(s) differ");
        Cli plain = Cli.run("profiles", "show", "cx5-like");
        assertThat(plain.out()).contains("every value as in the 'default' profile").doesNotContain("\n* ");
    }

    @Test
    void showReadsAProfileFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("mine.yaml");
        Files.writeString(file, "description: \"cx3 on a faster port\"\nextends: cx3-like\nlink.rate: 100Gbps\n");
        Cli r = Cli.run("profiles", "show", file.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("profile mine: cx3 on a faster port");
        // The file brings link.rate back to the default's value; cx3-like's width still differs.
        assertThat(lineOf(r.out(), "link.rate")).startsWith("  ").contains("100Gbps");
        assertThat(lineOf(r.out(), "pcie.lanes")).startsWith("* ").contains("(default: 16)");
    }

    @Test
    void jsonListsAndShowsEveryValue() throws Exception {
        Cli list = Cli.run("profiles", "--json");
        assertThat(list.code()).as(list.err()).isZero();
        JsonNode arr = JSON.readTree(list.out());
        List<String> names = new ArrayList<>();
        arr.forEach(n -> names.add(n.get("name").asText()));
        assertThat(names).isEqualTo(Profiles.names());
        assertThat(arr.get(1).get("description").asText()).isEqualTo(Profiles.load("cx3-like").description());

        Cli show = Cli.run("profiles", "show", "cx3-like", "--set", "pcie.mps=128", "--json");
        assertThat(show.code()).as(show.err()).isZero();
        JsonNode root = JSON.readTree(show.out());
        assertThat(root.get("profile").asText()).isEqualTo("cx3-like");
        assertThat(root.get("overrides").get(0).asText()).isEqualTo("pcie.mps=128");
        Profile expected = Profiles.load("cx3-like").with("pcie.mps", "128");
        Profile reference = Profiles.load("default");
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> differs = new LinkedHashMap<>();
        List<String> groups = new ArrayList<>();
        for (JsonNode g : root.get("groups")) {
            groups.add(g.get("group").asText());
            for (JsonNode p : g.get("parameters")) {
                String key = p.get("key").asText();
                assertThat(key).startsWith(g.get("group").asText() + ".");
                values.put(key, p.get("value").asText());
                if (p.get("differs").asBoolean()) {
                    differs.put(key, p.get("value").asText());
                }
                Parameter<?> par = Parameters.byKey(key);
                assertThat(p.get("unit").asText()).isEqualTo(par.unit());
                assertThat(p.get("description").asText()).isEqualTo(par.description());
                assertThat(p.get("source").asText()).isEqualTo(par.source());
                assertThat(p.get("default").asText()).isEqualTo(reference.get(key));
            }
        }
        assertThat(groups).containsExactly("pcie", "nic", "link", "transport", "cq", "host", "ndk", "qp");
        assertThat(values).containsExactlyEntriesOf(expected.asMap());
        assertThat(differs).containsExactlyEntriesOf(expected.differencesFrom(reference));
        assertThat(differs).containsEntry("pcie.mps", "128B").containsEntry("pcie.lanes", "8");
    }

    @Test
    void mistakesAreOneLineAndExitTwo() {
        Cli unknown = Cli.run("profiles", "show", "cx7-like");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err().strip()).isEqualTo("rdmasim: unknown profile 'cx7-like'; valid: default, cx3-like,"
                + " connectib-like, cx5-like, cx6-like (or a path to a .yaml file)");
        assertThat(unknown.out()).isEmpty();

        Cli badKey = Cli.run("profiles", "show", "default", "--set", "pcie.mpss=512");
        assertThat(badKey.code()).isEqualTo(2);
        assertThat(badKey.err().strip()).isEqualTo("rdmasim: unknown parameter 'pcie.mpss'; closest: pcie.mps, pcie.mrrs, pcie.gen");

        Cli badValue = Cli.run("profiles", "show", "default", "--set", "pcie.mps=300");
        assertThat(badValue.code()).isEqualTo(2);
        assertThat(badValue.err().strip()).isEqualTo("rdmasim: pcie.mps = 300: must be 128B..4KiB, power of two");

        Cli notKeyValue = Cli.run("profiles", "show", "default", "--set", "pcie.mps");
        assertThat(notKeyValue.code()).isEqualTo(2);
        assertThat(notKeyValue.err()).contains("'pcie.mps' is not key=value").doesNotContain("\tat ");

        Cli missingFile = Cli.run("profiles", "show", "no/such/file.yaml");
        assertThat(missingFile.code()).isEqualTo(2);
        assertThat(missingFile.err()).contains("no/such/file.yaml").doesNotContain("\tat ");
        assertThat(missingFile.err().strip().lines().count()).isEqualTo(1);

        Cli noName = Cli.run("profiles", "show");
        assertThat(noName.code()).isEqualTo(2);
        assertThat(noName.err()).contains("NAME|FILE");
    }
}
