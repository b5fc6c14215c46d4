package dev.rdmasim.traces.replay;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified diff of the first differences between two texts: the first hunk only (3 lines of context), at most
 * {@link #MAX_CHANGES} changed lines, from a longest-common-subsequence match over a window after the common
 * prefix. Enough to see what changed in a golden file without a diff tool; not a general diff.
 */
final class FirstDifferences {
    static final int CONTEXT = 3;
    static final int MAX_CHANGES = 20;
    private static final int WINDOW = 400;

    private FirstDifferences() {
    }

    /** The diff, or an empty string when the texts are equal line for line. */
    static String of(String expectedName, List<String> expected, String actualName, List<String> actual) {
        int p = 0;
        while (p < expected.size() && p < actual.size() && expected.get(p).equals(actual.get(p))) {
            p++;
        }
        if (p == expected.size() && p == actual.size()) {
            return "";
        }
        int n = Math.min(expected.size() - p, WINDOW);
        int m = Math.min(actual.size() - p, WINDOW);
        // lcs[i][j]: the longest common subsequence of expected[p+i..] and actual[p+j..] within the window.
        int[][] lcs = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                lcs[i][j] = expected.get(p + i).equals(actual.get(p + j)) ? lcs[i + 1][j + 1] + 1
                        : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        int start = Math.max(0, p - CONTEXT);
        List<String> body = new ArrayList<>();
        for (int k = start; k < p; k++) {
            body.add(" " + expected.get(k));
        }
        int i = 0;
        int j = 0;
        int changes = 0;
        int equalRun = 0;
        while ((i < n || j < m) && changes < MAX_CHANGES && equalRun < CONTEXT) {
            if (i < n && j < m && expected.get(p + i).equals(actual.get(p + j))) {
                body.add(" " + expected.get(p + i));
                i++;
                j++;
                equalRun++;
            } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
                body.add("-" + expected.get(p + i));
                i++;
                changes++;
                equalRun = 0;
            } else {
                body.add("+" + actual.get(p + j));
                j++;
                changes++;
                equalRun = 0;
            }
        }
        int context = p - start;
        StringBuilder s = new StringBuilder();
        s.append("--- ").append(expectedName).append('\n');
        s.append("+++ ").append(actualName).append('\n');
        s.append("@@ -").append(start + 1).append(',').append(context + i)
                .append(" +").append(start + 1).append(',').append(context + j).append(" @@\n");
        body.forEach(l -> s.append(l).append('\n'));
        if (changes == MAX_CHANGES && (i < n || j < m)) {
            s.append("... (cut after ").append(MAX_CHANGES).append(" changed lines)\n");
        } else if (!expected.subList(p + i, expected.size()).equals(actual.subList(p + j, actual.size()))) {
            s.append("... (more differences further on)\n");
        }
        return s.toString();
    }
}
