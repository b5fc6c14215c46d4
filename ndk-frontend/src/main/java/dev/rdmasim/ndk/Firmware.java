package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.format.Command;
import dev.rdmasim.driver.CommandQueue;
import dev.rdmasim.driver.CompletionQueue;
import dev.rdmasim.driver.HostDriver;
import dev.rdmasim.driver.MemoryRegion;
import dev.rdmasim.driver.QpOptions;
import dev.rdmasim.driver.QueuePair;
import dev.rdmasim.kernel.InvariantViolation;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * The provider's use of the adapter's firmware command queue: every object the NDK creates, changes or
 * destroys in hardware goes through here, and every result comes back as an NTSTATUS through a
 * callback, in the event in which the driver handles the command's completion interrupt. When the
 * command ring is full, commands wait in order in a backlog and go out as answers free slots, as a
 * driver's callers wait for a command slot.
 */
final class Firmware {
    /** A command's result as the NDK sees it. */
    interface Done<T> {
        void done(int status, T result);
    }

    /** Most times a destroy is retried while the adapter still drains the object (each try is one command). */
    private static final int BUSY_RETRIES = 10_000;

    private final CommandQueue queue;
    private final ArrayDeque<BooleanSupplier> backlog = new ArrayDeque<>();

    Firmware(HostDriver driver) {
        this.queue = driver.commands();
    }

    /** NTSTATUS of a command status (docs/ndk.md). */
    static int ntStatus(int commandStatus) {
        return switch (commandStatus) {
            case Command.STATUS_OK -> STATUS_SUCCESS;
            case Command.STATUS_NO_RESOURCES -> STATUS_INSUFFICIENT_RESOURCES;
            case Command.STATUS_RESOURCE_BUSY -> STATUS_DEVICE_BUSY;
            case Command.STATUS_BAD_RESOURCE_STATE -> STATUS_INVALID_DEVICE_STATE;
            case Command.STATUS_BAD_PARAM, Command.STATUS_BAD_RESOURCE, Command.STATUS_BAD_INPUT_LENGTH,
                    Command.STATUS_BAD_OPCODE -> STATUS_INVALID_PARAMETER;
            default -> STATUS_INTERNAL_ERROR;
        };
    }

    private void post(BooleanSupplier attempt) {
        if (!backlog.isEmpty() || !attempt.getAsBoolean()) {
            backlog.add(attempt);
        }
    }

    private void drain() {
        while (!backlog.isEmpty() && backlog.peek().getAsBoolean()) {
            backlog.poll();
        }
    }

    private <T> CommandQueue.Result<T> answer(Done<T> done) {
        return (status, value) -> {
            drain();
            done.done(ntStatus(status), value);
        };
    }

    void createCq(int logSize, Done<CompletionQueue> done) {
        post(() -> queue.createCq(logSize, answer(done)));
    }

    void resizeCq(CompletionQueue cq, int logSize, Done<CompletionQueue> done) {
        post(() -> queue.resizeCq(cq, logSize, answer(done)));
    }

    void moderateCq(CompletionQueue cq, int count, long periodPs, Done<CompletionQueue> done) {
        post(() -> queue.moderateCq(cq, count, periodPs, answer(done)));
    }

    void destroyCq(CompletionQueue cq, Done<Void> done) {
        post(() -> queue.destroyCq(cq, answer(done)));
    }

    void allocPd(Done<Integer> done) {
        post(() -> queue.allocatePd(answer(done)));
    }

    void deallocPd(int pd, Done<Void> done) {
        post(() -> queue.deallocatePd(pd, answer(done)));
    }

    void registerMemory(int pd, long address, long length, int access, Done<MemoryRegion> done) {
        post(() -> queue.registerMemory(pd, address, length, access, answer(done)));
    }

    void deregisterMemory(MemoryRegion mr, Done<Void> done) {
        post(() -> queue.deregisterMemory(mr, answer(done)));
    }

    void createQp(QpOptions options, Done<QueuePair> done) {
        post(() -> queue.createQp(options, answer(done)));
    }

    /** Moves a QP to the error state: the adapter flushes both its queues. */
    void qpToError(QueuePair qp, Done<QueuePair> done) {
        post(() -> queue.modifyQp(qp, Command.OP_2ERR_QP, answer(done)));
    }

    /**
     * Destroys a QP; while the adapter is still flushing it (RESOURCE_BUSY) the command is simply sent again,
     * each try taking the firmware's latency.
     */
    void destroyQp(QueuePair qp, Done<Void> done) {
        destroyQp(qp, done, BUSY_RETRIES);
    }

    private void destroyQp(QueuePair qp, Done<Void> done, int triesLeft) {
        post(() -> queue.destroyQp(qp, (status, none) -> {
            drain();
            if (status == Command.STATUS_RESOURCE_BUSY) {
                if (triesLeft == 0) {
                    throw new InvariantViolation("QP " + qp.qpn() + " still busy after " + BUSY_RETRIES + " destroy commands");
                }
                destroyQp(qp, done, triesLeft - 1);
                return;
            }
            done.done(ntStatus(status), null);
        }));
    }
}
