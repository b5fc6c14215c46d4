package dev.rdmasim.kernel.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * An external program a test runs on the simulator's outputs, found on {@code PATH}.
 *
 * <p>A plain {@code ./mvnw verify} needs only a JDK, so a test whose tool is missing is skipped, with a message on
 * the console saying what to install. A machine that is meant to run every check (CI, which installs the tools)
 * sets {@code -Drdmasim.requireTools=true} or the environment variable {@code RDMASIM_REQUIRE_TOOLS=1}: then a
 * missing tool fails the test, so such a run can never pass by skipping.
 */
public final class ExternalTool {
    /** The system property that turns a missing tool into a failure ({@code true}). */
    public static final String REQUIRE_PROPERTY = "rdmasim.requireTools";
    /** The environment variable that does the same ({@code 1} or {@code true}). */
    public static final String REQUIRE_ENV = "RDMASIM_REQUIRE_TOOLS";

    /** Tools already reported missing in this JVM: the console says it once per tool. */
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    private ExternalTool() {}

    /** GTKWave's VCD to FST converter (Debian package gtkwave). */
    public static Path vcd2fst() {
        return require("vcd2fst", "gtkwave");
    }

    /** Wireshark's command-line decoder (Debian package tshark). */
    public static Path tshark() {
        return require("tshark", "tshark");
    }

    /**
     * The program {@code name} on this JVM's {@code PATH}; if it is not there, aborts the calling test (it is
     * reported as skipped) or, when tools are required, fails it.
     *
     * @param installedBy the package that provides it, named in the message
     */
    public static Path require(String name, String installedBy) {
        try {
            return require(name, installedBy, System.getenv("PATH"), required(System.getProperty(REQUIRE_PROPERTY),
                    System.getenv(REQUIRE_ENV)));
        } catch (TestAbortedException e) {
            // Maven's console shows a skipped count, not the reason: say it once per tool.
            if (REPORTED.add(name)) {
                System.err.println("[rdmasim tests] " + e.getMessage());
            }
            throw e;
        }
    }

    /** {@link #require(String, String)} with the search path and the setting given: what the tests of this class use. */
    static Path require(String name, String installedBy, String searchPath, boolean toolsRequired) {
        Path found = find(name, searchPath);
        if (found != null) {
            return found;
        }
        String missing = name + " not found on PATH (install " + installedBy + ")";
        if (toolsRequired) {
            throw new AssertionFailedError(missing + "; this run requires the external tools (" + REQUIRE_PROPERTY
                    + " or " + REQUIRE_ENV + " is set), so the test fails instead of being skipped");
        }
        throw new TestAbortedException(missing + ": the tests that need it are skipped");
    }

    /** Whether the property's or the environment variable's value asks for the tools (true, 1, yes). */
    static boolean required(String property, String environment) {
        return yes(property) || yes(environment);
    }

    private static boolean yes(String v) {
        return v != null && Set.of("true", "1", "yes").contains(v.trim().toLowerCase(Locale.ROOT));
    }

    /** The first executable {@code name} in the directories of {@code searchPath}, or null. */
    static Path find(String name, String searchPath) {
        if (searchPath == null) {
            return null;
        }
        for (String dir : searchPath.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }
}
