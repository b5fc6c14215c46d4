package dev.rdmasim.cli;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * Help texts rendered ahead of time. Picocli's model of the commands (their options read by reflection) is most
 * of what a help request costs, so the launcher has every help text rendered once per build of the jar, into a
 * directory it names with {@value #DIR_PROPERTY}, and a later request for one of them prints the file instead of
 * building the model. The texts are picocli's own output, captured from the same code path a request takes,
 * with and without colours; picocli still decides whether colours apply. Anything else (other arguments, a missing
 * or unreadable file, picocli settings given as system properties) goes through picocli as before.
 */
final class HelpTexts {
    /** The system property naming the directory of rendered texts (set by the launcher). */
    static final String DIR_PROPERTY = "rdmasim.help";

    private HelpTexts() {
    }

    /**
     * Prints the rendered text {@code args} ask for and returns true, or returns false (having printed nothing)
     * when there is none: not a help request, no directory given, no such file, or picocli settings in the system
     * properties that could change the text.
     */
    static boolean print(String[] args) {
        String dir = System.getProperty(DIR_PROPERTY);
        if (dir == null || dir.isEmpty() || !plain(args) || picocliSettings()) {
            return false;
        }
        boolean ansi = CommandLine.Help.Ansi.AUTO.enabled();
        File file = new File(dir, fileName(args, ansi));
        byte[] text;
        try (InputStream in = new FileInputStream(file)) {
            text = in.readAllBytes();
        } catch (IOException e) {
            return false; // not rendered (not a help request, or no such command): picocli answers
        }
        System.out.write(text, 0, text.length);
        System.out.flush();
        return true;
    }

    /** Whether every argument could name a file and they look like a help request at all (the common case fast). */
    private static boolean plain(String[] args) {
        if (args.length > 0) {
            String last = args[args.length - 1];
            if (!last.equals("--help") && !last.equals("-h") && !args[0].equals("help")) {
                return false;
            }
        }
        return plainArgs(args);
    }

    /** Any picocli.* system property (width, colours, tracing, parser settings): picocli might answer otherwise. */
    static boolean picocliSettings() {
        for (Object key : System.getProperties().keySet()) {
            if (key instanceof String s && s.startsWith("picocli.")) {
                return true;
            }
        }
        return false;
    }

    /** The file of the text for {@code args}: {@code usage}, then each argument after a space, then the kind. */
    static String fileName(String[] args, boolean ansi) {
        StringBuilder b = new StringBuilder("usage");
        for (String a : args) {
            b.append(' ').append(a);
        }
        return b.append(ansi ? ".ansi" : ".txt").toString();
    }

    /**
     * Every help request rendered: the top level with no arguments, {@code --help}, {@code -h} and {@code help};
     * each command (at any depth, by every name) followed by each of its usage-help options; {@code help} and a
     * top-level command's name.
     */
    static List<String[]> requests() {
        List<String[]> all = new ArrayList<>();
        all.add(new String[0]);
        all.add(new String[] {"help"});
        CommandLine top = Main.commandLine();
        addOptionRequests(top, List.of(), all);
        for (String name : top.getSubcommands().keySet()) {
            all.add(new String[] {"help", name});
        }
        return all;
    }

    private static void addOptionRequests(CommandLine c, List<String> path, List<String[]> out) {
        for (CommandLine.Model.OptionSpec o : c.getCommandSpec().options()) {
            if (o.usageHelp()) {
                for (String name : o.names()) {
                    List<String> args = new ArrayList<>(path);
                    args.add(name);
                    out.add(args.toArray(String[]::new));
                }
            }
        }
        for (Map.Entry<String, CommandLine> sub : c.getSubcommands().entrySet()) {
            if (!sub.getKey().equals("help")) {
                List<String> next = new ArrayList<>(path);
                next.add(sub.getKey());
                addOptionRequests(sub.getValue(), next, out);
            }
        }
    }

    /**
     * Renders every request into {@code dir}, with and without colours, by running it through picocli with its
     * output captured; a request that does not print help and exit 0 is left out, and so is a text that is not
     * plain ASCII (the file holds bytes, and picocli may write other characters in another encoding).
     */
    static void render(Path dir) {
        try {
            Files.createDirectories(dir);
            for (String[] args : requests()) {
                if (!plainArgs(args)) {
                    continue;
                }
                for (boolean ansi : new boolean[] {false, true}) {
                    byte[] text = viaPicocli(args, ansi);
                    if (text != null) {
                        Files.write(dir.resolve(fileName(args, ansi)), text);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the rendered help into " + dir, e);
        }
    }

    /** Arguments a file may be named after: letters, digits, '-' and '_' only (no dot, no separator, not empty). */
    static boolean plainArgs(String[] args) {
        for (String a : args) {
            if (a.isEmpty()) {
                return false;
            }
            for (int i = 0; i < a.length(); i++) {
                char c = a.charAt(i);
                if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                    return false;
                }
            }
        }
        return true;
    }

    /** What picocli prints on stdout for {@code args} with colours on or off, or null if not help (exit 0, no stderr). */
    static byte[] viaPicocli(String[] args, boolean ansi) {
        String before = System.getProperty("picocli.ansi");
        String encoding = System.getProperty("sun.stdout.encoding");
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int code;
        try {
            System.setProperty("picocli.ansi", Boolean.toString(ansi));
            // Picocli encodes stdout with this when set: UTF-8 shows any character beyond ASCII as such.
            System.setProperty("sun.stdout.encoding", "UTF-8");
            System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
            code = Main.viaPicocli(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
            restore("picocli.ansi", before);
            restore("sun.stdout.encoding", encoding);
        }
        byte[] text = stdout.toByteArray();
        if (code != 0 || stderr.size() > 0 || text.length == 0) {
            return null;
        }
        for (byte b : text) {
            if (b < 0) {
                return null; // beyond ASCII: its bytes depend on the encoding of the run that prints it
            }
        }
        return text;
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
