/**
 * The trace file format: parsing, streaming replay and recording of NDK call traces. Empty until the NDK front end exists.
 */
package dev.rdmasim.traces;
