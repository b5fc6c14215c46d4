package dev.rdmasim.adapter.pcie;

/** A block at one end of the link: it sends TLPs one way and receives them the other way. */
interface LinkEnd {
    /** A TLP arrived (its last byte passed the receiver's LCRC check); the receiver now owns it. */
    void receive(Tlp tlp);

    /**
     * The last byte of a TLP this end queued with {@link Tlp#notifySent} has left on the wire; the TLP is still valid
     * during the call.
     */
    void sent(Tlp tlp);

    /** After {@link LinkTransmitter#canAccept} refused this end, a slot of the refused class became free. */
    void txSpace();

    /**
     * True if this end can take {@code tlp} late: at whatever instant the link is next brought up to date after the
     * TLP's arrival ({@link Tlp#arrivePs}, which the end then uses as the arrival time), instead of in an event at the
     * arrival. Asked once, when the TLP is queued, and only when the link hands over late TLPs at all. An end that
     * answers true must, for such a TLP, do nothing anyone could observe before something next looks at it (and it
     * makes sure that look first brings the link up to date), and must not call back into the link from
     * {@link #receive}.
     */
    default boolean takesLate(Tlp tlp) {
        return false;
    }

    /**
     * Asked by {@link LinkTransmitter#hurryLate} of each late TLP in flight: false if this end now wants it delivered
     * in an event at its arrival after all. Asked only of TLPs it took late, none of which has arrived yet.
     */
    default boolean stillLate(Tlp tlp) {
        return true;
    }

    /** True if this end wants {@link #linkEventBegin} and its companions; the link asks once, when connected. */
    default boolean bracketsLinkEvents() {
        return false;
    }

    /**
     * The link is about to run one of its events (which may call into either end and, through them, their clients);
     * {@link #linkEventEnd} follows as the event's very last step.
     */
    default void linkEventBegin() {
    }

    /** The link event announced by {@link #linkEventBegin} has nothing left to do after this call. */
    default void linkEventEnd() {
    }

    /** The link event announced by {@link #linkEventBegin} is ending with an exception instead. */
    default void linkEventAbandoned() {
    }
}
