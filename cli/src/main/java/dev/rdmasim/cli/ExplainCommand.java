package dev.rdmasim.cli;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.adapter.nic.Stage;
import dev.rdmasim.ndk.NdkOpFlags;
import dev.rdmasim.traces.format.TraceError;
import dev.rdmasim.traces.replay.Replay;
import dev.rdmasim.traces.replay.ReplayOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rdmasim explain TRACE --request N}: replays the trace and narrates one initiator request through the
 * adapters, stage by stage (the stages of {@code lifecycle.csv}), with the block that acted and why it took
 * that long, in the terms of the hosts' profiles.
 */
@Command(name = "explain",
        mixinStandardHelpOptions = true,
        description = {"Replays a trace and narrates one initiator request through the adapters, stage by stage.",
            "Each stage shows the simulated time, the time since the previous stage, the block that acted, and what"
                + " it did (with the profile's figures that made it take that long)."})
final class ExplainCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TRACE", description = "The trace file.")
    Path trace;

    @Option(names = "--request", paramLabel = "N",
            description = "The N-th initiator request (send, write, read) in posting order, from 1 (default: 1).")
    Long request;

    @Option(names = "--ctx", paramLabel = "NAME", description = "The first initiator request posted with ctx=NAME.")
    String ctx;

    @CommandLine.Mixin
    RunOptions opts = new RunOptions();

    @Override
    public void run() {
        if (request != null && ctx != null) {
            throw new UserError("give --request N or --ctx NAME, not both");
        }
        long n = request == null ? 1 : request;
        if (ctx == null && n < 1) {
            throw new UserError("--request counts from 1, got " + n);
        }
        if (!Files.isRegularFile(trace)) {
            throw new UserError("no trace file " + trace);
        }
        try {
            Profiles.resolve(opts.profile).withOverrides(opts.overrides);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        Replay.RequestStages[] found = {null};
        List<Replay.RequestStages> receives = new ArrayList<>();
        long[] count = {0};
        Profile[] profiles = new Profile[2];
        try {
            // No output directory: explain needs the request stages, not the replay's files.
            ReplayOptions o = new ReplayOptions(null, opts.profile, opts.overrides, opts.seed, false, null, false, false);
            Replay.run(trace, o, in -> {
                for (int h = 0; h < 2; h++) {
                    profiles[h] = in.topology().host(h).adapter().profile();
                }
            }, r -> {
                if (r.op().equals("receive")) {
                    receives.add(r);
                    return;
                }
                count[0]++;
                boolean match = ctx != null ? ctx.equals(r.ctx()) : r.seq() == n;
                // Rows come in retirement order; the wanted one is the earliest posted that matches.
                if (match && (found[0] == null || r.seq() < found[0].seq())) {
                    found[0] = r;
                }
            });
        } catch (TraceError e) {
            throw new UserError(e.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot replay " + trace, e);
        }
        if (found[0] == null) {
            throw new UserError(ctx != null ? "no initiator request with ctx=" + ctx + " in " + trace
                    : "no request " + n + ": " + trace + " posts " + count[0] + " initiator request"
                    + (count[0] == 1 ? "" : "s"));
        }
        PrintWriter p = spec.commandLine().getOut();
        new Narrator(found[0], profiles).print(p, trace);
        Replay.RequestStages consumed = consumedReceive(found[0], receives);
        if (consumed != null) {
            new Narrator(found[0], profiles).printReceive(p, consumed);
        }
        p.flush();
    }

    /**
     * The receive the request consumed at the peer, if any (a SEND, or a WRITE with immediate): the adapter stamps the
     * request's placement and the receive's at the same event, the last byte of the message handed to PCIe there.
     */
    static Replay.RequestStages consumedReceive(Replay.RequestStages r, List<Replay.RequestStages> receives) {
        long placed = r.at(Stage.REMOTE_PLACED);
        if (placed == Stage.NOT_REACHED || r.op().equals("read")) {
            return null;
        }
        for (Replay.RequestStages v : receives) {
            if (v.host() != r.host() && v.at(Stage.REMOTE_PLACED) == placed) {
                return v;
            }
        }
        return null;
    }

    /** Turns one request's stage times into sentences, with the figures of the profiles that explain them. */
    static final class Narrator {
        private final Replay.RequestStages r;
        private final Profile here;
        private final Profile peer;
        private final String me;
        private final String other;
        private final long roundTripPs;
        private final long frames;

        Narrator(Replay.RequestStages r, Profile[] profiles) {
            this.r = r;
            this.here = profiles[r.host()];
            this.peer = profiles[1 - r.host()];
            this.me = r.host() == 0 ? "A" : "B";
            this.other = r.host() == 0 ? "B" : "A";
            this.roundTripPs = 2 * here.getLong(PCIE_LINK_LATENCY) + here.getLong(PCIE_HOST_READ_LATENCY);
            long mtu = here.getLong(LINK_MTU);
            this.frames = Math.max(1, (r.bytes() + mtu - 1) / mtu);
        }

        void print(PrintWriter p, Path trace) {
            p.printf(Locale.US, "request %d of %s: %s on %s, ctx=%s, %d B%s (%s, profile %s)%n", r.seq(), trace, r.op(),
                    r.qp(), r.ctx(), r.bytes(), flagText(), "host " + me, here.name());
            p.printf(Locale.US, "  %-16s %-13s %-10s %s%n", "time", "+delta", "block", "stage");
            long prev = -1;
            for (Stage s : Stage.values()) {
                long t = r.at(s);
                String block = block(s);
                if (t == Stage.NOT_REACHED) {
                    p.printf(Locale.US, "  %-16s %-13s %-10s %s: %s%n", "-", "", block, name(s), skipped(s));
                    continue;
                }
                String delta = prev < 0 ? "" : "+" + ns(t - prev);
                p.printf(Locale.US, "  %-16s %-13s %-10s %s: %s%n", ns(t), delta, block, name(s),
                        explain(s, prev < 0 ? 0 : t - prev));
                prev = t;
            }
            long total = r.at(Stage.POLLED) != Stage.NOT_REACHED ? r.at(Stage.POLLED) - r.at(Stage.POSTED) : -1;
            if (total >= 0) {
                p.printf(Locale.US, "  post to poll: %s%n", ns(total));
            }
        }

        /** The receiver's side: which receive WQE the message consumed, its CQE and its poll. */
        void printReceive(PrintWriter p, Replay.RequestStages v) {
            p.printf(Locale.US, "at host %s: the message consumed receive %s on %s (posted at %s), %d B%n", other,
                    v.ctx().isEmpty() ? "(no ctx)" : "ctx=" + v.ctx(), v.qp(), ns(v.at(Stage.POSTED)), v.bytes());
            long placed = v.at(Stage.REMOTE_PLACED);
            long cqe = v.at(Stage.CQE_WRITTEN);
            long polled = v.at(Stage.POLLED);
            p.printf(Locale.US, "  %-16s %-13s %-10s %s%n", ns(placed), "", "nic" + other + ".rx",
                    "placed: the last byte of the message went to PCIe into the receive's buffers");
            if (cqe != Stage.NOT_REACHED) {
                p.printf(Locale.US, "  %-16s %-13s %-10s %s%n", ns(cqe), "+" + ns(cqe - placed),
                        Stage.CQE_WRITTEN.block().name(other, me), "receive CQE written: after the payload's writes "
                        + "left, the CQE writer built it (nic.cqeCycles + nic.cqePipelineCycles = "
                        + ns(cyclesPs(NIC_CQE_CYCLES, peer) + cyclesPs(NIC_CQE_PIPELINE_CYCLES, peer))
                        + ") and DMA-wrote it into the receive CQ, visible after pcie.linkLatency and "
                        + "pcie.hostWriteLatency " + ns(peer.getLong(PCIE_HOST_WRITE_LATENCY)));
            }
            if (polled != Stage.NOT_REACHED && cqe != Stage.NOT_REACHED) {
                p.printf(Locale.US, "  %-16s %-13s %-10s %s%n", ns(polled), "+" + ns(polled - cqe),
                        Stage.POLLED.block().name(other, me), "polled: host " + other + "'s poll call took the "
                        + "receive completion (host.pollTime " + ns(peer.getLong(HOST_POLL_TIME)) + " per entry, plus "
                        + "host.pollMissTime " + ns(peer.getLong(HOST_POLL_MISS_TIME)) + " for the line just written)");
            } else {
                p.printf(Locale.US, "  %-16s %-13s %-10s %s%n", "-", "", Stage.POLLED.block().name(other, me),
                        "polled: never polled before the replay ended");
            }
        }

        private String flagText() {
            List<String> f = new ArrayList<>();
            if ((r.flags() & NdkOpFlags.NDK_OP_FLAG_INLINE) != 0) {
                f.add("INLINE");
            }
            if ((r.flags() & NdkOpFlags.NDK_OP_FLAG_SILENT_SUCCESS) != 0) {
                f.add("SILENT_SUCCESS");
            }
            return f.isEmpty() ? "" : ", flags " + String.join("|", f);
        }

        private static String ns(long ps) {
            return String.format(Locale.US, "%d.%03d ns", ps / 1000, ps % 1000);
        }

        private static String name(Stage s) {
            return switch (s) {
                case POSTED -> "posted";
                case DOORBELL -> "doorbell";
                case WQE_FETCHED -> "WQE in the adapter";
                case PAYLOAD_READ -> "payload read";
                case FIRST_PACKET -> "first packet";
                case LAST_PACKET -> "last packet";
                case REMOTE_PLACED -> "placed at the peer";
                case ACKED -> "acknowledged";
                case CQE_WRITTEN -> "CQE written";
                case POLLED -> "polled";
            };
        }

        /** The block named by the stage itself ({@link Stage#block()}), on this request's side. */
        private String block(Stage s) {
            return s.block().name(me, other);
        }

        /**
         * The adapter recorded how the WQE came: one written whole by BlueFlame is never fetched, so its
         * {@link Stage#WQE_FETCHED} stays empty while its doorbell is stamped.
         */
        private boolean blueFlame() {
            return r.at(Stage.DOORBELL) != Stage.NOT_REACHED && r.at(Stage.WQE_FETCHED) == Stage.NOT_REACHED;
        }

        private long cyclesPs(dev.rdmasim.adapter.config.Parameter<Long> cycles, Profile p) {
            return p.getLong(cycles) * 1_000_000_000_000L / p.getLong(NIC_CLOCK);
        }

        /** The Ethernet path of one frame, with this profile's figures: PHYs, FEC and cable. */
        private String port() {
            String fec = here.getString(LINK_FEC);
            return "link.phyTxLatency " + ns(here.getLong(LINK_PHY_TX_LATENCY)) + ", link.propagationDelay "
                    + ns(here.getLong(LINK_PROPAGATION_DELAY)) + ", " + (fec.equals("none") ? "no FEC"
                    : "link.fec " + fec + ": the frame waits for the end of its codeword") + ", link.phyRxLatency "
                    + ns(peer.getLong(LINK_PHY_RX_LATENCY));
        }

        private String serialization(long bytes, Profile p) {
            return ns(bytes * 8 * 1_000_000_000_000L / p.getLong(LINK_RATE));
        }

        private String opcodes() {
            String base = switch (r.op()) {
                case "send" -> "SEND";
                case "write" -> "RDMA WRITE";
                default -> "RDMA READ";
            };
            if (r.op().equals("read")) {
                return "one RDMA READ Request (the " + frames + " READ Response frame" + (frames == 1 ? "" : "s")
                        + " come back from " + other + ")";
            }
            return frames == 1 ? "one " + base + " Only frame"
                    : frames + " frames: " + base + " First, " + (frames > 2 ? (frames - 2) + " Middle, " : "") + base
                    + " Last";
        }

        private String explain(Stage s, long delta) {
            return explainWithin(s) + beyond(s, delta);
        }

        /**
         * When a stage took well over its least time (the figures named), says where the rest usually goes: the
         * adapter's own DMA reads of contexts and keys missing from its caches, or requests queued ahead.
         */
        private String beyond(Stage s, long delta) {
            long least = switch (s) {
                case PAYLOAD_READ -> roundTripPs;
                case WQE_FETCHED -> roundTripPs;
                case CQE_WRITTEN -> cyclesPs(NIC_CQE_CYCLES, here) + cyclesPs(NIC_CQE_PIPELINE_CYCLES, here)
                        + here.getLong(PCIE_LINK_LATENCY) + here.getLong(PCIE_HOST_WRITE_LATENCY);
                default -> -1;
            };
            if (least < 0 || delta < 2 * least) {
                return "";
            }
            return "; " + ns(delta - least) + " more than that: the block waited for other work first (on a "
                    + "connection's first requests, DMA reads of QP/CQ contexts and memory keys missing from the "
                    + "adapter's caches)";
        }

        private String explainWithin(Stage s) {
            long mtu = here.getLong(LINK_MTU);
            return switch (s) {
                case POSTED -> "the provider built the WQE in the send ring in host memory (host.wqeBuildTime "
                        + ns(here.getLong(HOST_WQE_BUILD_TIME)) + " of CPU time)"
                        + ((r.flags() & NdkOpFlags.NDK_OP_FLAG_INLINE) != 0 ? ", copying the payload into it" : "");
                case DOORBELL -> (blueFlame() ? "the CPU wrote the whole WQE to the BlueFlame register in 64 B "
                        + "write-combined chunks (host.wcFlushTime " + ns(here.getLong(HOST_WC_FLUSH_TIME)) + " each) and fenced "
                        + "(host.wcBarrierTime " + ns(here.getLong(HOST_WC_BARRIER_TIME)) + ")"
                        : "the CPU rang the doorbell with an 8 B MMIO store (host.mmioStoreTime "
                        + ns(here.getLong(HOST_MMIO_STORE_TIME)) + ")")
                        + ", the store went through the uncore to the root port (pcie.mmioLatency "
                        + ns(here.getLong(PCIE_MMIO_LATENCY)) + ") and the posted write crossed PCIe (pcie.linkLatency "
                        + ns(here.getLong(PCIE_LINK_LATENCY)) + " plus the TLP's serialization)";
                case WQE_FETCHED -> "the fetch engine DMA-read the WQE from the send ring: a PCIe read round trip of at least "
                        + ns(roundTripPs) + " (2 x pcie.linkLatency + pcie.hostReadLatency "
                        + ns(here.getLong(PCIE_HOST_READ_LATENCY)) + ") plus parsing";
                case PAYLOAD_READ -> "the adapter DMA-read the first packet's payload (" + Math.min(r.bytes(), mtu)
                        + " B) from host memory: a PCIe read round trip of at least " + ns(roundTripPs)
                        + " (2 x pcie.linkLatency + pcie.hostReadLatency), plus the completion TLPs";
                case FIRST_PACKET -> "the WQE went through QP-context lookup and processing (nic.wqeParseCycles + "
                        + "nic.wqePipelineCycles = " + ns(cyclesPs(NIC_WQE_PARSE_CYCLES, here)
                        + cyclesPs(NIC_WQE_PIPELINE_CYCLES, here)) + "), then the transmit engine built the first "
                        + "frame (nic.txPacketCycles + nic.txPipelineCycles = " + ns(cyclesPs(NIC_TX_PACKET_CYCLES, here)
                        + cyclesPs(NIC_TX_PIPELINE_CYCLES, here)) + ") and put it on the wire: " + opcodes();
                case LAST_PACKET -> frames == 1 ? "the only frame: the last packet is the first one"
                        : "the last of " + frames + " frames left: each carries up to " + mtu + " B of payload, "
                        + serialization(mtu, here) + " at link.rate " + here.getLong(LINK_RATE) / 1_000_000_000L
                        + " Gb/s plus headers, and later frames wait for their payload reads";
                case REMOTE_PLACED -> "the last frame crossed the Ethernet port and cable (" + port()
                        + "), host " + other + "'s adapter parsed it and ran the responder (nic.rxPacketCycles + "
                        + "nic.rxPipelineCycles = " + ns(cyclesPs(NIC_RX_PACKET_CYCLES, peer)
                        + cyclesPs(NIC_RX_PIPELINE_CYCLES, peer)) + ") and issued the DMA write of the last byte into "
                        + "its memory (host " + other + "'s CPU sees it pcie.linkLatency plus pcie.hostWriteLatency "
                        + ns(peer.getLong(PCIE_HOST_WRITE_LATENCY)) + " later)";
                case ACKED -> r.op().equals("read") ? "the last READ Response frame arrived back at " + me
                        : "the responder's ACK came back through the ports and the cable (" + port()
                        + ", plus the ACK frame's serialization)";
                case CQE_WRITTEN -> "the CQE writer built the completion (nic.cqeCycles + nic.cqePipelineCycles = "
                        + ns(cyclesPs(NIC_CQE_CYCLES, here) + cyclesPs(NIC_CQE_PIPELINE_CYCLES, here)) + ") and "
                        + "DMA-wrote it into the CQ ring: a posted PCIe write, visible to the CPU after pcie.linkLatency, "
                        + "its TLP and pcie.hostWriteLatency " + ns(here.getLong(PCIE_HOST_WRITE_LATENCY));
                case POLLED -> (r.flags() & NdkOpFlags.NDK_OP_FLAG_SILENT_SUCCESS) != 0
                        ? "unsignaled: it was retired with the completion of a later request, taken here"
                        : "the consumer's poll call took the completion and returned: host.pollTime "
                        + ns(here.getLong(HOST_POLL_TIME)) + " of CPU time per entry it read, plus host.pollMissTime "
                        + ns(here.getLong(HOST_POLL_MISS_TIME)) + " for the cache line the adapter had just written, "
                        + "after any work the CPU had queued";
            };
        }

        private String skipped(Stage s) {
            return switch (s) {
                case PAYLOAD_READ -> (r.flags() & NdkOpFlags.NDK_OP_FLAG_INLINE) != 0
                        ? "no payload read: INLINE put the " + r.bytes() + " B in the WQE itself"
                        : r.op().equals("read") ? "no payload read: a READ carries no payload out"
                        : "no payload read (" + r.bytes() + " B)";
                case WQE_FETCHED -> blueFlame()
                        ? "no WQE fetch: the WQE came whole through BlueFlame with the doorbell; the adapter only "
                        + "parsed it (nic.wqeParseCycles = " + ns(cyclesPs(NIC_WQE_PARSE_CYCLES, here)) + ", part of the "
                        + "next step)"
                        : "no WQE fetch recorded";
                case POLLED -> "never polled before the replay ended";
                default -> "not reached (the request failed or was flushed before this stage)";
            };
        }
    }
}
