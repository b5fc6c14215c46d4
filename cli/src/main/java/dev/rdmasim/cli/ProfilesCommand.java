package dev.rdmasim.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.rdmasim.adapter.config.Parameter;
import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdmasim profiles}: the shipped adapter profiles, and every value of one of them. Everything shown comes from
 * the profile system ({@link Profiles}, {@link Profile}, {@link Parameter}); nothing is re-derived here.
 */
@Command(name = "profiles",
        mixinStandardHelpOptions = true,
        description = {"Lists the shipped adapter profiles (name and description).",
            "'profiles show NAME|FILE' prints every parameter of one profile."},
        subcommands = {ProfilesCommand.Show.class})
final class ProfilesCommand implements Runnable {
    /** Titles of the key prefixes, in the order the registry declares them (docs/profiles.md's grouping). */
    private static final Map<String, String> GROUP_TITLES = Map.of(
            "pcie", "PCIe link between host and adapter",
            "nic", "Adapter internals",
            "link", "Ethernet link of the RoCEv2 port",
            "transport", "RC transport",
            "cq", "Completion queues",
            "host", "Host CPU and driver",
            "ndk", "NDK_ADAPTER_INFO (ndkinfo.h, header order)",
            "qp", "Defaults for a QP created without explicit values");

    /** Made on first use: building a mapper loads some 400 classes, which commands that print no JSON never need. */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--json", description = "Machine-readable output.")
    boolean json;

    @Override
    public void run() {
        PrintWriter o = spec.commandLine().getOut();
        List<Profile> profiles = new ArrayList<>();
        for (String name : Profiles.names()) {
            profiles.add(Profiles.load(name));
        }
        if (json) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (Profile p : profiles) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", p.name());
                m.put("description", p.description());
                list.add(m);
            }
            printJson(o, list);
            return;
        }
        int width = 0;
        for (Profile p : profiles) {
            width = Math.max(width, p.name().length());
        }
        for (Profile p : profiles) {
            o.println(p.name() + " ".repeat(width - p.name().length() + 2) + p.description());
        }
        o.println();
        o.println("'" + Main.command() + " profiles show NAME|FILE' prints every value; --profile NAME|FILE selects one.");
        o.flush();
    }

    static void printJson(PrintWriter o, Object value) {
        try {
            o.println(Json.MAPPER.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        o.flush();
    }

    /** Title of a key's group: the text for its prefix, or the prefix itself for one not listed. */
    static String groupTitle(String prefix) {
        return GROUP_TITLES.getOrDefault(prefix, prefix);
    }

    static String prefix(String key) {
        int dot = key.indexOf('.');
        return dot < 0 ? key : key.substring(0, dot);
    }

    /** One parameter of the shown profile. */
    record Row(Parameter<?> parameter, String value, String defaultValue) {
        boolean differs() {
            return !value.equals(defaultValue);
        }
    }

    /** The profile's parameters by key prefix, groups in registry order, each in registry order. */
    static Map<String, List<Row>> rows(Profile profile, Profile reference) {
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        for (Parameter<?> p : Parameters.all()) {
            Row row = new Row(p, profile.get(p.key()), reference.get(p.key()));
            groups.computeIfAbsent(prefix(p.key()), k -> new ArrayList<>()).add(row);
        }
        return groups;
    }

    @Command(name = "show",
            mixinStandardHelpOptions = true,
            description = {"Prints every parameter of a profile, grouped by key prefix.",
                "Each has its key, value (with its unit), base unit, description and source. '*' marks values that"
                    + " differ from the 'default' profile."})
    static final class Show implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Parameters(index = "0", paramLabel = "NAME|FILE",
                description = "A shipped profile name (see 'rdmasim profiles') or a profile YAML file.")
        String profile;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Override a parameter, e.g. --set pcie.mps=512 (repeatable).")
        List<String> overrides = new ArrayList<>();

        @Option(names = "--json", description = "Machine-readable output.")
        boolean json;

        @Override
        public void run() {
            Profile p = resolve(profile, overrides);
            Profile reference = Profiles.load("default");
            Map<String, List<Row>> groups = rows(p, reference);
            PrintWriter o = spec.commandLine().getOut();
            if (json) {
                printJson(o, toJson(p, groups));
            } else {
                printText(o, p, groups);
            }
        }

        private Map<String, Object> toJson(Profile p, Map<String, List<Row>> groups) {
            Map<String, Object> root = new LinkedHashMap<>();
            root.put("profile", p.name());
            root.put("description", p.description());
            root.put("overrides", overrides);
            root.put("reference", "default");
            List<Object> gl = new ArrayList<>();
            for (Map.Entry<String, List<Row>> g : groups.entrySet()) {
                Map<String, Object> gm = new LinkedHashMap<>();
                gm.put("group", g.getKey());
                gm.put("title", groupTitle(g.getKey()));
                List<Object> params = new ArrayList<>();
                for (Row r : g.getValue()) {
                    Parameter<?> par = r.parameter();
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("key", par.key());
                    m.put("value", r.value());
                    m.put("unit", par.unit());
                    m.put("type", par.type().name());
                    m.put("default", r.defaultValue());
                    m.put("differs", r.differs());
                    m.put("allowed", par.allowed());
                    m.put("description", par.description());
                    m.put("source", par.source());
                    params.add(m);
                }
                gm.put("parameters", params);
                gl.add(gm);
            }
            root.put("groups", gl);
            return root;
        }

        private static void printText(PrintWriter o, Profile p, Map<String, List<Row>> groups) {
            int keyW = 3;
            int valW = 5;
            int unitW = 4;
            int differing = 0;
            for (List<Row> g : groups.values()) {
                for (Row r : g) {
                    keyW = Math.max(keyW, r.parameter().key().length());
                    valW = Math.max(valW, r.value().length());
                    unitW = Math.max(unitW, r.parameter().unit().length());
                    differing += r.differs() ? 1 : 0;
                }
            }
            o.println("profile " + p.name() + ": " + p.description());
            o.println(differing == 0 ? "  every value as in the 'default' profile"
                    : "  * " + differing + " value(s) differ from the 'default' profile (its value in parentheses)");
            String fmt = "%s %-" + keyW + "s  %-" + valW + "s  %-" + unitW + "s  %s%n";
            for (Map.Entry<String, List<Row>> g : groups.entrySet()) {
                o.println();
                o.println(groupTitle(g.getKey()) + " (" + g.getKey() + ".*)");
                o.printf(Locale.US, fmt, " ", "KEY", "VALUE", "UNIT", "DESCRIPTION [SOURCE]");
                for (Row r : g.getValue()) {
                    Parameter<?> par = r.parameter();
                    String text = par.description() + " [" + par.source() + "]"
                            + (r.differs() ? " (default: " + r.defaultValue() + ")" : "");
                    o.printf(Locale.US, fmt, r.differs() ? "*" : " ", par.key(), r.value(), par.unit(), text);
                }
            }
            o.flush();
        }
    }

    /** A shipped name or a YAML file with {@code key=value} overrides; a bad one is a one-line {@link UserError}. */
    static Profile resolve(String nameOrFile, List<String> overrides) {
        try {
            return Profiles.resolve(nameOrFile).withOverrides(overrides);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
    }
}
