package dev.rdmasim.kernel.stats;

import java.util.function.DoubleSupplier;

/** A value derived from other statistics (e.g. bandwidth = bytes / time), computed only when read. */
public final class Formula extends Stat {

    private final DoubleSupplier function;

    Formula(StatInfo info, DoubleSupplier function) {
        super(info);
        this.function = function;
    }

    /** Evaluates the formula now; may be NaN or infinite, e.g. when dividing by an elapsed time of zero. */
    public double value() {
        return function.getAsDouble();
    }

    @Override
    public String toString() {
        return fullName() + " = " + value();
    }
}
