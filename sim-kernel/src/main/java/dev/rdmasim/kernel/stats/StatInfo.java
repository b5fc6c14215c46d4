package dev.rdmasim.kernel.stats;

/** Identity shared by every statistic kind. */
record StatInfo(String name, String fullName, String unit, String description) {
}
