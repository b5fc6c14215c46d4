/**
 * The model against published measurements of real adapters: the shipped table of figures (hardware, conditions,
 * source, tolerance), each run on the profile and settings that describe its setup, and the report that sets the
 * two side by side ({@code rdmasim validate}).
 */
package dev.rdmasim.traces.validate;
