package dev.rdmasim.sweep.hazelcast;

import dev.rdmasim.sweep.Point;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.PointRunner;
import java.io.Serializable;
import java.util.function.Function;

/**
 * What a member applies to each point it is sent. It travels with every task, so it must be serialisable and its
 * class present on every member: {@link #RUNNER} in production, fakes in tests.
 */
@FunctionalInterface
public interface PointFunction extends Function<Point, PointResult>, Serializable {
    /** {@link PointRunner#run}: the simulation itself. */
    PointFunction RUNNER = Runner.INSTANCE;

    /** An enum so that it deserialises by name, whatever the compiler does with lambdas. */
    enum Runner implements PointFunction {
        INSTANCE;

        @Override
        public PointResult apply(Point point) {
            return PointRunner.run(point);
        }
    }
}
