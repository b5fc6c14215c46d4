package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.Simulator;

/** A bare top-level module to hang test blocks under. */
final class Top extends Module {
    Top(Simulator sim) {
        super(sim, "top");
    }
}
