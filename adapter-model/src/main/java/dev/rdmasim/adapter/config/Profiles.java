package dev.rdmasim.adapter.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Named profiles shipped as YAML resources under {@code dev/rdmasim/adapter/profiles/}, and user
 * profile files. A file holds {@code description:}, optionally {@code extends:} (a built-in name,
 * or a path relative to the file) and parameter values, as dotted keys ({@code pcie.mps: 512}) or
 * nested maps ({@code pcie: {mps: 512}}). Values not set come from the profile it extends, or from
 * the registry defaults. Errors name the file and line.
 */
public final class Profiles {
    /** The built-in profiles, in the order they are listed to users. */
    private static final List<String> NAMES = List.of("default", "cx3-like", "connectib-like", "cx5-like", "cx6-like");
    private static final String RESOURCE_DIR = "/dev/rdmasim/adapter/profiles/";
    private static final Set<String> RESERVED = Set.of("description", "extends");
    private static final YAMLFactory YAML = new YAMLFactory();

    private Profiles() {
    }

    /** Names of the built-in profiles. */
    public static List<String> names() {
        return NAMES;
    }

    /** A built-in profile by name; an unknown name is an error listing the valid ones. */
    public static Profile load(String name) {
        return loadBuiltIn(name, new LinkedHashSet<>());
    }

    /** A profile from a user YAML file; its name is the file name without extension. */
    public static Profile fromFile(Path path) {
        return loadFile(path, new LinkedHashSet<>());
    }

    /** A built-in name, or else a path to a YAML file: what a command-line option accepts. */
    public static Profile resolve(String nameOrPath) {
        if (NAMES.contains(nameOrPath)) {
            return load(nameOrPath);
        }
        if (looksLikePath(nameOrPath)) {
            return fromFile(Path.of(nameOrPath));
        }
        throw unknownName(nameOrPath);
    }

    /**
     * A profile from YAML text; {@code source} names it in errors and gives its name. {@code extends}
     * may only name built-in profiles here.
     */
    public static Profile parse(String source, String yaml) {
        return build(source, baseName(source), readYaml(source, new StringReader(yaml)), null, new LinkedHashSet<>());
    }

    private static Profile loadBuiltIn(String name, Set<String> visiting) {
        if (!NAMES.contains(name)) {
            throw unknownName(name);
        }
        String source = name + ".yaml";
        try (InputStream in = Profiles.class.getResourceAsStream(RESOURCE_DIR + source)) {
            if (in == null) {
                throw new IllegalStateException("built-in profile resource missing: " + RESOURCE_DIR + source);
            }
            Doc doc = readYaml(source, new InputStreamReader(in, StandardCharsets.UTF_8));
            return build(source, name, doc, null, enter(visiting, "builtin:" + name, source));
        } catch (IOException e) {
            throw new ProfileException(source + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static Profile loadFile(Path path, Set<String> visiting) {
        String source = path.toString();
        Path real = path.toAbsolutePath().normalize();
        Doc doc;
        try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            doc = readYaml(source, in);
        } catch (IOException e) {
            throw new ProfileException(source + ": cannot read profile file (" + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + ")", e);
        }
        return build(source, baseName(path.getFileName().toString()), doc, real.getParent(),
                enter(visiting, "file:" + real, source));
    }

    private static Set<String> enter(Set<String> visiting, String id, String source) {
        Set<String> next = new LinkedHashSet<>(visiting);
        if (!next.add(id)) {
            throw new ProfileException(source + ": 'extends' forms a cycle");
        }
        return next;
    }

    private static Profile build(String source, String name, Doc doc, Path dir, Set<String> visiting) {
        Profile base;
        if (doc.extendsRef == null) {
            base = Profile.defaults();
        } else {
            String ref = doc.extendsRef.text;
            if (NAMES.contains(ref)) {
                base = loadBuiltIn(ref, visiting);
            } else if (dir != null && looksLikePath(ref)) {
                base = loadFile(dir.resolve(ref), visiting);
            } else {
                throw new ProfileException(where(source, doc.extendsRef.line) + "extends unknown profile '" + ref
                        + "'; valid: " + String.join(", ", NAMES) + (dir != null ? " or a .yaml path" : ""));
            }
        }
        Map<String, String> overrides = new LinkedHashMap<>();
        for (Map.Entry<String, Scalar> e : doc.values.entrySet()) {
            String at = where(source, e.getValue().line);
            Parameter<?> p;
            try {
                p = Profile.lookup(e.getKey());
                p.parse(e.getValue().text);
            } catch (ProfileException ex) {
                throw new ProfileException(at + ex.getMessage(), ex);
            }
            overrides.put(p.key(), e.getValue().text);
        }
        String description = doc.description == null ? "profile from " + source : doc.description.text;
        try {
            return base.withOverrides(overrides).named(name, description);
        } catch (ProfileException ex) {
            throw new ProfileException(source + ": " + ex.getMessage(), ex);
        }
    }

    private static String where(String source, int line) {
        return line > 0 ? source + " line " + line + ": " : source + ": ";
    }

    private static ProfileException unknownName(String name) {
        return new ProfileException("unknown profile '" + name + "'; valid: " + String.join(", ", NAMES)
                + " (or a path to a .yaml file)");
    }

    private static boolean looksLikePath(String s) {
        return s.endsWith(".yaml") || s.endsWith(".yml") || s.contains("/") || s.contains("\\");
    }

    private static String baseName(String fileName) {
        String f = fileName.substring(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1);
        int dot = f.lastIndexOf('.');
        return dot > 0 ? f.substring(0, dot) : f;
    }

    private record Scalar(String text, int line) {
    }

    /** A profile file's content: reserved keys and flattened parameter values with their lines. */
    private static final class Doc {
        Scalar description;
        Scalar extendsRef;
        final Map<String, Scalar> values = new LinkedHashMap<>();
    }

    private static Doc readYaml(String source, Reader reader) {
        Doc doc = new Doc();
        try (JsonParser parser = YAML.createParser(reader)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return doc; // an empty file changes nothing
            }
            if (first != JsonToken.START_OBJECT) {
                throw new ProfileException(where(source, line(parser)) + "expected a map of key: value");
            }
            readMap(source, parser, "", doc);
            if (parser.nextToken() != null) {
                throw new ProfileException(where(source, line(parser)) + "expected a single YAML document");
            }
            return doc;
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw new ProfileException(where(source, line) + "not valid YAML: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ProfileException(source + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    private static void readMap(String source, JsonParser parser, String prefix, Doc doc) throws IOException {
        for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
            String field = parser.currentName();
            int keyLine = line(parser);
            String key = prefix + field;
            JsonToken v = parser.nextToken();
            if (v == JsonToken.START_OBJECT) {
                readMap(source, parser, key + ".", doc);
                continue;
            }
            if (v == JsonToken.START_ARRAY) {
                throw new ProfileException(where(source, keyLine) + key + ": a list is not a parameter value");
            }
            if (v == JsonToken.VALUE_NULL) {
                throw new ProfileException(where(source, keyLine) + key + ": no value");
            }
            Scalar s = new Scalar(parser.getText(), keyLine);
            if (prefix.isEmpty() && RESERVED.contains(field)) {
                if (field.equals("description")) {
                    doc.description = s;
                } else {
                    doc.extendsRef = s;
                }
            } else {
                Scalar old = doc.values.put(key, s);
                if (old != null) {
                    throw new ProfileException(where(source, keyLine) + key + " is set twice (also line " + old.line + ")");
                }
            }
        }
    }

    private static int line(JsonParser parser) {
        return parser.currentTokenLocation().getLineNr();
    }
}
