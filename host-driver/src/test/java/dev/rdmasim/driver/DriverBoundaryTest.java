package dev.rdmasim.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.nic.Adapter;
import dev.rdmasim.kernel.Simulator;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The driver reaches its adapter through AdapterControl only; the host assembly is what builds the adapter. */
class DriverBoundaryTest {
    @Test
    void onlyTheHostAssemblyNamesTheConcreteAdapter() throws IOException, URISyntaxException {
        Path classes = Path.of(HostDriver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path dir = classes.resolve("dev/rdmasim/driver");
        List<String> naming = new ArrayList<>();
        List<String> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class")).sorted()::iterator) {
                String name = f.getFileName().toString();
                all.add(name);
                if (namesAdapter(Files.readAllBytes(f))) {
                    naming.add(name);
                }
            }
        }
        assertThat(all).contains("HostDriver.class", "CmAgent.class", "SendQueue.class", "CompletionQueue.class");
        assertThat(naming).containsExactly("Host.class");
    }

    /**
     * Whether a class file refers to {@code Adapter}: a class constant is a UTF-8 entry holding exactly its
     * internal name (tag 1, big-endian length, bytes), a type in a signature is {@code L<name>;}.
     */
    static boolean namesAdapter(byte[] classFile) {
        String internal = Adapter.class.getName().replace('.', '/');
        byte[] name = internal.getBytes(StandardCharsets.UTF_8);
        byte[] entry = new byte[name.length + 3];
        entry[0] = 1;
        entry[1] = (byte) (name.length >>> 8);
        entry[2] = (byte) name.length;
        System.arraycopy(name, 0, entry, 3, name.length);
        return indexOf(classFile, entry) >= 0
                || indexOf(classFile, ("L" + internal + ";").getBytes(StandardCharsets.UTF_8)) >= 0;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void theCheckSeesAClassThatBuildsAnAdapter() throws IOException, URISyntaxException {
        // The check itself: Host builds an Adapter, HostCpu never mentions one.
        Path classes = Path.of(HostDriver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(namesAdapter(Files.readAllBytes(classes.resolve("dev/rdmasim/driver/Host.class")))).isTrue();
        assertThat(namesAdapter(Files.readAllBytes(classes.resolve("dev/rdmasim/driver/HostCpu.class")))).isFalse();
    }

    @Test
    void theAssemblyGivesTheDriverItsMemoryAndItsAdaptersPortAddresses() {
        Simulator sim = new Simulator(1);
        Host h = new Host(sim, "hostA", "nicA", Profile.defaults(), 0x02_00_00_00_00_07L, 0x0A00_0007);
        assertThat(h.driver().memory()).isSameAs(h.memory()).isSameAs(h.adapter().memory());
        assertThat(h.driver().mac()).isEqualTo(h.adapter().mac()).isEqualTo(0x02_00_00_00_00_07L);
        assertThat(h.driver().ip()).isEqualTo(h.adapter().ip()).isEqualTo(0x0A00_0007);
        assertThat(h.driver().profile()).isSameAs(h.adapter().profile());
        assertThat(h.driver().fullName()).isEqualTo("hostA");
        assertThat(h.adapter().fullName()).isEqualTo("nicA");
        assertThat(h.driver().cpu().fullName()).isEqualTo("hostA.cpu");
    }
}
