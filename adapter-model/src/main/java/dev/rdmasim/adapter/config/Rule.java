package dev.rdmasim.adapter.config;

import java.util.function.Function;

/**
 * A rule across several parameters, checked whenever a {@link Profile} is built.
 *
 * @param description what the rule demands, for docs ({@code docs/profiles.md})
 * @param check       null when the profile satisfies the rule, otherwise a one-line message naming
 *                    the keys and their values
 */
public record Rule(String description, Function<Profile, String> check) {
}
