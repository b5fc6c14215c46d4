package dev.rdmasim.adapter.pcie;

/** A block at one end of the link: it sends TLPs one way and receives them the other way. */
interface LinkEnd {
    /** A TLP arrived (its last byte passed the receiver's LCRC check); the receiver now owns it. */
    void receive(Tlp tlp);

    /** The last byte of a TLP this end queued has left on the wire; the TLP is still valid during the call. */
    void sent(Tlp tlp);

    /** A slot in this end's transmit queue became free. */
    void txSpace();
}
