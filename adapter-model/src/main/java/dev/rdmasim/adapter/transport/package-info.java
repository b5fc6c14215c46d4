/**
 * The reliable-connection transport: packet sequence numbers, the responder's ordered checks on
 * an incoming request, and the requester's window of unacknowledged packets with its
 * retransmission (go-back-N) bookkeeping. Pure logic with no timing of its own; the engines that
 * use it charge the cycles.
 */
package dev.rdmasim.adapter.transport;
