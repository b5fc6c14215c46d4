/**
 * Adapter configuration: a flat registry of typed {@link dev.rdmasim.adapter.config.Parameter}s
 * ({@link dev.rdmasim.adapter.config.Parameters}), immutable validated
 * {@link dev.rdmasim.adapter.config.Profile}s with per-parameter ranges and cross-parameter
 * {@link dev.rdmasim.adapter.config.Rule}s, and named YAML profiles
 * ({@link dev.rdmasim.adapter.config.Profiles}). Values keep their units in the text
 * ({@code 4KiB}, {@code 550ns}, {@code 100Gbps}) and are stored as whole bytes, picoseconds, bit/s
 * and Hz. docs/profiles.md documents every parameter; {@link dev.rdmasim.adapter.config.ParameterTable}
 * generates its table.
 */
package dev.rdmasim.adapter.config;
