package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.InvariantViolation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The TLP free list: it recycles, grows up to its cap, and turns a leak or a double release into a loud failure. */
class TlpPoolTest {

    @Test
    void recyclesBeforeGrowingAndGrowsOnlyToItsCap() {
        TlpPool pool = new TlpPool(256, 2, 5);
        assertThat(pool.created()).isEqualTo(2);
        assertThat(pool.free()).isEqualTo(2);
        List<Tlp> held = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            held.add(pool.acquire(TlpKind.MWR));
        }
        assertThat(pool.created()).isEqualTo(5);
        assertThat(pool.free()).isZero();
        assertThat(held).doesNotHaveDuplicates();
        assertThatThrownBy(() -> pool.acquire(TlpKind.MRD)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("5 TLPs alive");
        pool.release(held.get(3));
        Tlp again = pool.acquire(TlpKind.CPLD);
        assertThat(again).isSameAs(held.get(3));
        assertThat(again.kind()).isEqualTo(TlpKind.CPLD);
        assertThat(pool.created()).isEqualTo(5);
    }

    @Test
    void aReleasedTlpIsClearedAndCannotBeReleasedTwice() {
        TlpPool pool = new TlpPool(64, 1, 4);
        Tlp t = pool.acquire(TlpKind.MWR);
        t.address = 0x1234;
        t.length = 8;
        pool.release(t);
        assertThat(t.address()).isZero();
        assertThat(t.length()).isZero();
        assertThatThrownBy(() -> pool.release(t)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("released twice");
        // The free list grows past its first size when more come back than it had room for.
        TlpPool small = new TlpPool(64, 0, 40);
        List<Tlp> held = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            held.add(small.acquire(TlpKind.MRD));
        }
        held.forEach(small::release);
        assertThat(small.free()).isEqualTo(40);
        assertThat(small.created()).isEqualTo(40);
    }
}
