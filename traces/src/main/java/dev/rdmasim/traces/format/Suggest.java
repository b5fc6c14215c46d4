package dev.rdmasim.traces.format;

/** "did you mean" for a misspelt keyword, key or flag: the closest candidate within a small edit distance. */
public final class Suggest {
    private Suggest() {
    }

    /** {@code "; did you mean 'x'?"} for the closest candidate (ignoring case), or "" when none is close. */
    public static String didYouMean(String word, String[] candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String w = word.toLowerCase(java.util.Locale.ROOT);
        for (String c : candidates) {
            int d = distance(w, c.toLowerCase(java.util.Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        int allowed = Math.max(1, Math.min(3, word.length() / 3));
        return best != null && bestDistance <= allowed ? "; did you mean '" + best + "'?" : "";
    }

    /** Levenshtein distance with transpositions counted as one edit. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[a.length()][b.length()];
    }
}
