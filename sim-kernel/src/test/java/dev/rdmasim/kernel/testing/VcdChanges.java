package dev.rdmasim.kernel.testing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A VCD dump read back for tests: each signal's changes with their times, and the levels it settles at. */
public final class VcdChanges {
    private VcdChanges() {
    }

    /** Each signal's changes in a dump as {time, value}, by hierarchical name. */
    public static Map<String, List<long[]>> parseTimed(String vcd) {
        Map<String, String> names = new HashMap<>();
        Map<String, List<long[]>> values = new LinkedHashMap<>();
        Deque<String> scope = new ArrayDeque<>();
        long time = 0;
        for (String line : vcd.split("\n")) {
            String[] w = line.split(" ");
            if (line.startsWith("$scope")) {
                scope.addLast(w[2]);
            } else if (line.startsWith("$upscope")) {
                scope.removeLast();
            } else if (line.startsWith("$var")) {
                String name = String.join(".", scope) + "." + w[4];
                names.put(w[3], name);
                values.put(name, new ArrayList<>());
            } else if (line.startsWith("#")) {
                time = Long.parseLong(line.substring(1));
            } else if (line.startsWith("b")) {
                values.get(names.get(w[1])).add(new long[] {time, Long.parseUnsignedLong(w[0].substring(1), 2)});
            } else if ((line.startsWith("0") || line.startsWith("1")) && names.containsKey(line.substring(1))) {
                values.get(names.get(line.substring(1))).add(new long[] {time, line.charAt(0) - '0'});
            }
        }
        return values;
    }

    /** The level a signal settles at after each instant it changes, as "time=value", from an initial 0. */
    public static List<String> steps(List<long[]> changes) {
        List<String> out = new ArrayList<>();
        long level = 0;
        for (int i = 0; i < changes.size(); i++) {
            long t = changes.get(i)[0];
            long v = changes.get(i)[1];
            if (i + 1 < changes.size() && changes.get(i + 1)[0] == t) {
                continue; // a later change at the same instant wins
            }
            if (v != level) {
                out.add(t + "=" + v);
                level = v;
            }
        }
        return out;
    }
}
