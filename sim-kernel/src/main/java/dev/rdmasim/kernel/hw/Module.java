package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.StatsGroup;
import dev.rdmasim.kernel.wave.Signal;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * A named block in the model hierarchy: a name, a parent, children, statistics, waveform signals,
 * a private random stream and a reset. Transaction-level blocks extend this directly; blocks that
 * run on a clock extend {@link ClockedModule}.
 */
public abstract class Module {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\[[0-9]+\\])?");

    private final Simulator sim;
    private final Module parent;
    private final String name;
    private final String fullName;
    private final List<Module> children = new ArrayList<>();
    private StatsGroup stats;
    private SplittableRandom random;

    /** A top-level module. */
    protected Module(Simulator sim, String name) {
        this.sim = Objects.requireNonNull(sim, "sim");
        this.parent = null;
        this.name = checkName(name);
        this.fullName = name;
        sim.registerTopLevel(name);
    }

    /** A child of {@code parent}; its full name is {@code parent.fullName() + "." + name}. */
    protected Module(Module parent, String name) {
        this.parent = Objects.requireNonNull(parent, "parent");
        this.sim = parent.sim;
        this.name = checkName(name);
        this.fullName = parent.fullName + "." + name;
        for (Module sibling : parent.children) {
            if (sibling.name.equals(name)) {
                throw new IllegalArgumentException("module '" + parent.fullName + "' already has a child named '" + name + "'");
            }
        }
        parent.children.add(this);
    }

    private static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bad module name '" + name
                    + "': expected a letter or '_' then letters, digits or '_', optionally an index like [3]");
        }
        return name;
    }

    public final String name() {
        return name;
    }

    /** Dotted hierarchical name, e.g. {@code nicA.dma}. */
    public final String fullName() {
        return fullName;
    }

    public final Module parent() {
        return parent;
    }

    public final List<Module> children() {
        return Collections.unmodifiableList(children);
    }

    public final Simulator sim() {
        return sim;
    }

    /** Current simulated time in picoseconds. */
    public final long now() {
        return sim.now();
    }

    /** This module's statistics group, registered with the simulator on first use. */
    public final StatsGroup stats() {
        if (stats == null) {
            stats = new StatsGroup(fullName, sim);
            sim.stats().register(stats);
        }
        return stats;
    }

    /**
     * This module's random stream, derived from the run seed and the full name only: adding a module
     * elsewhere never changes the numbers this one draws.
     */
    public final SplittableRandom random() {
        if (random == null) {
            random = sim.random().stream(fullName);
        }
        return random;
    }

    /** Declares a waveform signal {@code fullName() + "." + localName}; a no-op signal when waveforms are off. */
    protected final Signal signal(String localName, int width) {
        VcdWriter wave = sim.wave();
        String n = fullName + "." + localName;
        return wave == null ? Signal.disabled(n, width) : wave.signal(n, width);
    }

    /** Returns this module and its descendants to their initial state. */
    public final void reset() {
        resetKernelState();
        onReset();
        for (Module c : children) {
            c.reset();
        }
    }

    /** Restores this module's own state; children are reset separately. Registers and ports reset by themselves. */
    protected void onReset() {
    }

    /** State the kernel owns for the module (registers, ports), reset whatever {@link #onReset()} does. */
    void resetKernelState() {
    }

    @Override
    public String toString() {
        return fullName;
    }
}
