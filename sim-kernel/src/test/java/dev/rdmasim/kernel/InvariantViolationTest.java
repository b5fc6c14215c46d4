package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InvariantViolationTest {

    @Test
    void checkThrowsOnlyWhenTheConditionFails() {
        assertThatCode(() -> InvariantViolation.check(true, "fine")).doesNotThrowAnyException();
        assertThatThrownBy(() -> InvariantViolation.check(false, "queue lost an event"))
                .isInstanceOf(InvariantViolation.class).hasMessage("queue lost an event");
    }
}
