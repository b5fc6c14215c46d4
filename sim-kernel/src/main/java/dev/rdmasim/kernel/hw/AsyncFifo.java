package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;
import java.util.Arrays;

/**
 * A clock-domain-crossing queue: written on one clock, read on another. As in a hardware async
 * FIFO, each side learns of the other's pointer only through a synchronizer: an item written at time
 * {@code t} is visible to the reader from its {@code syncStages}-th edge strictly after {@code t},
 * and a slot freed by the reader becomes usable by the writer from the writer's
 * {@code syncStages}-th edge after the read. Because visibility is always strictly after the
 * writing instant, coincident edges of the two clocks cannot race.
 */
public final class AsyncFifo<T> {
    private final int depth;
    private final int syncStages;
    private final Object[] items;
    private final long[] visibleToReader;
    private final long[] freeToWriter;
    /** Items written and read so far (committed). */
    private long written;
    private long read;
    /** Monotone views of the other side's pointer through the synchronizer. */
    private long writtenSeenByReader;
    private long readSeenByWriter;

    private final Writer writer;
    private final Reader reader;

    /** Consumer end facing the producer (write clock). */
    public final InPort<T> enq;
    /** Producer end facing the consumer (read clock). */
    public final OutPort<T> deq;

    public AsyncFifo(Module parent, String name, ClockDomain writeClock, ClockDomain readClock, int depth, int syncStages) {
        if (depth < 1) {
            throw new IllegalArgumentException("async fifo '" + name + "': depth must be at least 1, got " + depth);
        }
        if (syncStages < 1) {
            throw new IllegalArgumentException("async fifo '" + name + "': at least one synchronizer stage is needed, got "
                    + syncStages);
        }
        this.depth = depth;
        this.syncStages = syncStages;
        this.items = new Object[depth];
        this.visibleToReader = new long[depth];
        this.freeToWriter = new long[depth];
        this.writer = new Writer(parent, name + "_wr", writeClock);
        this.reader = new Reader(parent, name + "_rd", readClock);
        this.enq = writer.in;
        this.deq = reader.out;
    }

    /**
     * A crossing fed by {@code producer} into {@code readClock}, created beside the producer's module
     * (halves {@code <name>_wr} and {@code <name>_rd}); returns the read-side output port.
     */
    public static <T> OutPort<T> of(OutPort<T> producer, ClockDomain readClock, int depth, int syncStages) {
        return of(producer, Fifo.siblingName(producer, "cdc"), readClock, depth, syncStages);
    }

    /** As {@link #of(OutPort, ClockDomain, int, int)}, with an explicit name. */
    public static <T> OutPort<T> of(OutPort<T> producer, String name, ClockDomain readClock, int depth, int syncStages) {
        ClockedModule p = producer.owner();
        AsyncFifo<T> f = new AsyncFifo<>(Fifo.siblingParent(p), name, p.clock(), readClock, depth, syncStages);
        Channels.connect(producer, f.enq);
        return f.deq;
    }

    public int depth() {
        return depth;
    }

    /** Items written and not yet read (committed state, as an outside observer sees it). */
    public long size() {
        return written - read;
    }

    /** Time the synchronizer of {@code clock} presents a change made at {@code t}. */
    private long syncedAt(ClockDomain clock, long t) {
        return clock.edgeAfter(t) + clock.cyclesToPs(syncStages - 1);
    }

    /** Items written and not yet read, as an outside observer sees them; kept on the write half. */
    private void occupancyChanged() {
        writer.occupancy.set(written - read);
        writer.occupancySignal.set(written - read);
    }

    private final class Writer extends ClockedModule {
        final InPort<T> in;
        private final Counter pushed = stats().counter("written", "items", "items written on the write clock");
        final TimeAverage occupancy = stats().timeAverage("occupancy", "items",
                "items written and not yet read, averaged over simulated time");
        final Signal occupancySignal = signal("count", Math.max(1, 64 - Long.numberOfLeadingZeros(depth)));
        private boolean push;
        private T item;

        Writer(Module parent, String name, ClockDomain clock) {
            super(parent, name, clock);
            in = new InPort<>(this, "enq", false, this::ready);
        }

        private boolean ready() {
            long edge = clock().edgeTime(cycle());
            while (readSeenByWriter < read && freeToWriter[(int) (readSeenByWriter % depth)] <= edge) {
                readSeenByWriter++;
            }
            return written - readSeenByWriter < depth;
        }

        @Override
        protected void evaluate() {
            push = in.fire();
            item = push ? in.bits() : null;
        }

        @Override
        protected void commit() {
            if (push) {
                int slot = (int) (written % depth);
                items[slot] = item;
                long visible = syncedAt(reader.clock(), now());
                visibleToReader[slot] = visible;
                written++;
                pushed.inc();
                occupancyChanged();
                reader.wakeAtCycle(reader.clock().cycleAt(visible));
            }
            push = false;
            item = null;
        }

        @Override
        protected void onReset() {
                AsyncFifo.this.resetShared();
        }
    }

    private final class Reader extends ClockedModule {
        final OutPort<T> out;
        private final Counter popped = stats().counter("read", "items", "items read on the read clock");
        private boolean pop;

        Reader(Module parent, String name, ClockDomain clock) {
            super(parent, name, clock);
            out = new OutPort<>(this, "deq", new OutPort.Logic<>() {
                @Override
                public boolean valid() {
                    return visibleCount() > 0;
                }

                @Override
                @SuppressWarnings("unchecked")
                public T bits() {
                    return visibleCount() > 0 ? (T) items[(int) (read % depth)] : null;
                }
            });
        }

        private long visibleCount() {
            long edge = clock().edgeTime(cycle());
            while (writtenSeenByReader < written && visibleToReader[(int) (writtenSeenByReader % depth)] <= edge) {
                writtenSeenByReader++;
            }
            return writtenSeenByReader - read;
        }

        @Override
        protected void evaluate() {
            pop = out.fire();
        }

        @Override
        protected void commit() {
            if (pop) {
                int slot = (int) (read % depth);
                items[slot] = null;
                long free = syncedAt(writer.clock(), now());
                freeToWriter[slot] = free;
                read++;
                popped.inc();
                occupancyChanged();
                writer.wakeAtCycle(writer.clock().cycleAt(free));
            }
            pop = false;
        }
    }

    private void resetShared() {
        Arrays.fill(items, null);
        written = 0;
        read = 0;
        writtenSeenByReader = 0;
        readSeenByWriter = 0;
        occupancyChanged();
    }
}
