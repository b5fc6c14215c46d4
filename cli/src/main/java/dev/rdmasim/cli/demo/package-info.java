/**
 * Teaching demos behind {@code rdmasim demo adapter}: a self-contained run of the adapter model (two hosts
 * streaming RDMA WRITEs) that writes a waveform and statistics. The demos live with the command, not in the model.
 */
package dev.rdmasim.cli.demo;
