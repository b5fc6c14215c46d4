package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The send scheduler alone, with a scripted requester: QPs join at random, each turn's answer (more, done for now,
 * wait) is drawn from a seeded script, and a reference round robin predicts which QP gets each turn. Checks the
 * order of turns, that a QP leaves the round when its turn yields nothing, keeps its place (at the back) and stops
 * the round when it must wait, and is never in the round twice.
 */
class SendSchedulerTest {

    /** Answers each turn from a script and records who had it. */
    private static final class ScriptedRequester implements SendScheduler.Requester {
        final SplittableRandom rnd;
        final List<Integer> turns = new ArrayList<>();
        final Map<Integer, Integer> answers = new HashMap<>();

        ScriptedRequester(SplittableRandom rnd) {
            this.rnd = rnd;
        }

        @Override
        public int nextRequestPacket(Qp qp) {
            int r = rnd.nextInt(10);
            int answer = r < 6 ? 1 : r < 9 ? 0 : -1;
            turns.add(qp.qpn);
            answers.put(turns.size() - 1, answer);
            return answer;
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void turnsGoRoundRobinAndFollowEachAnswer(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        BlockHarness h = new BlockHarness(seed);
        int qpCount = 2 + rnd.nextInt(7);
        for (int i = 0; i < qpCount; i++) {
            h.addQp(2 + i, 6, 16, 4, 256, 1, 64);
        }
        SendScheduler scheduler = new SendScheduler(h);
        ScriptedRequester requester = new ScriptedRequester(rnd);
        scheduler.connect(requester);
        // The reference: a FIFO of QP numbers with the same rules.
        ArrayDeque<Integer> model = new ArrayDeque<>();
        int checked = 0;
        for (int round = 0; round < 400; round++) {
            if (rnd.nextInt(3) == 0) {
                Qp qp = h.qp(2 + rnd.nextInt(qpCount));
                boolean wasIn = model.contains(qp.qpn);
                scheduler.add(qp);
                if (!wasIn) {
                    model.addLast(qp.qpn);
                }
                assertThat(model.stream().filter(n -> n == qp.qpn)).as("a QP is in the round once").hasSize(1);
            } else {
                boolean expectTurn = !model.isEmpty();
                boolean more = scheduler.step();
                if (!expectTurn) {
                    assertThat(more).as("an empty round gives no turn").isFalse();
                    continue;
                }
                int expected = model.pollFirst();
                assertThat(requester.turns).as("turn %d goes to the head of the round", checked).hasSize(checked + 1);
                assertThat(requester.turns.get(checked)).isEqualTo(expected);
                int answer = requester.answers.get(checked);
                checked++;
                if (answer != 0) {
                    model.addLast(expected); // more to send, or waiting: it stays in the round, at the back
                }
                assertThat(more).as("a waiting QP stops the round").isEqualTo(answer >= 0);
                assertThat(h.qp(expected).turn.queued()).isEqualTo(answer != 0);
            }
        }
        assertThat(checked).as("the script gave turns").isGreaterThan(100);
        assertThat(requester.answers.values()).contains(-1, 0, 1);
    }

    /** A QP that is not ready to send never joins the round. */
    @Test
    void onlyReadyToSendQpsJoin() {
        BlockHarness h = new BlockHarness(1);
        Qp ready = h.addQp(2, 6, 16, 4, 256, 1, 64);
        Qp notYet = h.addQp(3, 6, 16, 4, 256, 1, 64, QpState.READY_TO_RECEIVE);
        SendScheduler scheduler = new SendScheduler(h);
        List<Integer> turns = new ArrayList<>();
        scheduler.connect(qp -> {
            turns.add(qp.qpn);
            return 0;
        });
        scheduler.add(notYet);
        scheduler.add(ready);
        scheduler.add(ready);
        while (scheduler.step()) {
            // drain
        }
        assertThat(turns).containsExactly(2);
        assertThat(notYet.turn.queued()).isFalse();
        assertThat(ready.turn.queued()).isFalse();
    }
}
