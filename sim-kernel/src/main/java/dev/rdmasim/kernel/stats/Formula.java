package dev.rdmasim.kernel.stats;

import java.util.function.DoubleSupplier;

/** A value derived from other statistics (e.g. bandwidth = bytes / time), computed only when read. */
public final class Formula implements Stat {

    private final StatInfo info;
    private final DoubleSupplier function;

    Formula(StatInfo info, DoubleSupplier function) {
        this.info = info;
        this.function = function;
    }

    /** Evaluates the formula now; may be NaN or infinite, e.g. when dividing by an elapsed time of zero. */
    public double value() {
        return function.getAsDouble();
    }

    @Override
    public String name() {
        return info.name();
    }

    @Override
    public String fullName() {
        return info.fullName();
    }

    @Override
    public String unit() {
        return info.unit();
    }

    @Override
    public String description() {
        return info.description();
    }

    @Override
    public String toString() {
        return info.fullName() + " = " + value();
    }
}
