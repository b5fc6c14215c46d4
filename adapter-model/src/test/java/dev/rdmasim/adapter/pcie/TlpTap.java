package dev.rdmasim.adapter.pcie;

import java.util.function.Consumer;

/** Test helper: wraps a link end, shows every TLP it receives to an observer, and forwards everything unchanged. */
final class TlpTap implements LinkEnd {
    private final LinkEnd inner;
    private final Consumer<Tlp> observer;

    TlpTap(LinkEnd inner, Consumer<Tlp> observer) {
        this.inner = inner;
        this.observer = observer;
    }

    @Override
    public void receive(Tlp t) {
        observer.accept(t);
        inner.receive(t);
    }

    @Override
    public void sent(Tlp t) {
        inner.sent(t);
    }

    @Override
    public void txSpace() {
        inner.txSpace();
    }

    @Override
    public boolean bracketsLinkEvents() {
        return inner.bracketsLinkEvents();
    }

    @Override
    public void linkEventBegin() {
        inner.linkEventBegin();
    }

    @Override
    public void linkEventEnd() {
        inner.linkEventEnd();
    }

    @Override
    public void linkEventAbandoned() {
        inner.linkEventAbandoned();
    }
}
