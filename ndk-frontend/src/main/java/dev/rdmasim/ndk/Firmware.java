package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.STATUS_SUCCESS;

import dev.rdmasim.adapter.driver.CompletionQueue;
import dev.rdmasim.adapter.driver.HostDriver;
import dev.rdmasim.adapter.driver.MemoryRegion;
import dev.rdmasim.adapter.driver.QpOptions;
import dev.rdmasim.adapter.driver.QueuePair;
import dev.rdmasim.adapter.nic.QpState;

/**
 * The provider's use of the adapter's command interface: every object the NDK creates, changes or
 * destroys in hardware goes through here, and every result comes back as an NTSTATUS through a
 * callback, never from within the call.
 */
final class Firmware {
    /** A command's result. */
    interface Done<T> {
        void done(int status, T result);
    }

    private final NdkAdapter adapter;
    private final HostDriver driver;

    Firmware(NdkAdapter adapter, HostDriver driver) {
        this.adapter = adapter;
        this.driver = driver;
    }

    void createCq(int logSize, Done<CompletionQueue> done) {
        CompletionQueue cq = driver.createCq(logSize);
        adapter.callback(() -> done.done(STATUS_SUCCESS, cq));
    }

    void destroyCq(CompletionQueue cq, Done<Void> done) {
        adapter.callback(() -> done.done(STATUS_SUCCESS, null));
    }

    void moderateCq(CompletionQueue cq, int count, long periodPs, Done<Void> done) {
        driver.adapter().moderateCq(cq.cqn(), count, periodPs);
        adapter.callback(() -> done.done(STATUS_SUCCESS, null));
    }

    void allocPd(Done<Integer> done) {
        int pd = driver.allocatePd();
        adapter.callback(() -> done.done(STATUS_SUCCESS, pd));
    }

    void deallocPd(int pd, Done<Void> done) {
        adapter.callback(() -> done.done(STATUS_SUCCESS, null));
    }

    void registerMemory(int pd, long address, long length, int access, Done<MemoryRegion> done) {
        MemoryRegion mr = driver.registerMemory(pd, address, length, access);
        adapter.callback(() -> done.done(STATUS_SUCCESS, mr));
    }

    void deregisterMemory(MemoryRegion mr, Done<Void> done) {
        driver.adapter().deregisterMemory(mr.key());
        adapter.callback(() -> done.done(STATUS_SUCCESS, null));
    }

    void createQp(QpOptions options, Done<QueuePair> done) {
        QueuePair qp = driver.createQp(options);
        adapter.callback(() -> done.done(STATUS_SUCCESS, qp));
    }

    void modifyQp(QueuePair qp, QpState state, Done<Void> done) {
        driver.adapter().modifyQp(qp.qpn(), state);
        adapter.callback(() -> done.done(STATUS_SUCCESS, null));
    }

    void destroyQp(QueuePair qp, Done<Void> done) {
        adapter.callback(() -> done.done(STATUS_SUCCESS, null));
    }
}
