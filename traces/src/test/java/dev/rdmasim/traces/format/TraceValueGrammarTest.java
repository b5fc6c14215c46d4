package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The value grammar at its edges, value by value: the largest numbers each kind holds and the first it refuses, every
 * character class next to the ones a name or number takes, empty parts around separators, and the column an error
 * inside a value points at (the value starts at column 10 here; {@code exact} means the text is the file's own).
 */
class TraceValueGrammarTest {
    private static final int COL = 10;

    /** What parsing gave: the value, or "file:line:col: detail" of the error. */
    private static String outcome(Supplier<Object> parse) {
        try {
            Object v = parse.get();
            return v instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : String.valueOf(v);
        } catch (TraceError e) {
            Position p = e.position();
            return p.line() + ":" + p.column() + ": " + e.detail();
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "9223372036854775807 | 9223372036854775807",
        "9223372036854775808 | 1:10: expected an integer such as 128 or 0x5A, got '9223372036854775808' (too large)",
        "0x7FFFFFFFFFFFFFFF | 9223372036854775807",
        "0x8000000000000000 | 1:10: expected an integer such as 128 or 0x5A, got '0x8000000000000000' (too large)",
        "0X1f | 31",
        "0x1 | 1",
        "010 | 10",
        "0x | 1:10: expected an integer such as 128 or 0x5A, got '0x'",
        "0xg | 1:10: expected an integer such as 128 or 0x5A, got '0xg'",
        "0x1g | 1:10: expected an integer such as 128 or 0x5A, got '0x1g'",
        "/ | 1:10: expected an integer such as 128 or 0x5A, got '/'",
        ": | 1:10: expected an integer such as 128 or 0x5A, got ':'",
        "12a | 1:10: expected an integer such as 128 or 0x5A, got '12a'",
        "'' | 1:10: expected an integer such as 128 or 0x5A, got ''"})
    void integers(String text, String expected) {
        assertThat(outcome(() -> Values.integer(text, "t", 1, COL))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "7EiB | 8070450532247928832",
        "8EiB | 1:10: expected a size such as 4KiB, got '8EiB' (too large)",
        "9223372036854775807B | 9223372036854775807",
        "9223372036854775807KiB | 1:10: expected a size such as 4KiB, got '9223372036854775807KiB' (too large)",
        "99999999999999999999 | 1:10: expected a size such as 4KiB, got '99999999999999999999' (too large)",
        "0x1B | 27",
        "0x10 | 16",
        "KiB | 1:10: expected a size such as 4KiB, got 'KiB'",
        "12.5KiB | 1:10: expected a size such as 4KiB, got '12.5KiB'",
        "4Kib | 4096",
        "4Kb | 1:10: expected a size such as 4KiB, got '4Kb' (sizes take binary units: 4KiB is 4096 B; KB, MB, GB, ... are not used)",
        "4XiB | 1:10: expected a size such as 4KiB, got '4XiB'"})
    void sizes(String text, String expected) {
        assertThat(outcome(() -> Values.size(text, "t", 1, COL))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "9223372036854775799ps | 9223372036854775799",
        "9223372036854775808ps | 1:10: expected a time such as 1.5us, got '9223372036854775808ps' (too large)",
        "9223372s | 9223372000000000000",
        "9223373s | 1:10: expected a time such as 1.5us, got '9223373s' (too large)",
        "1.0010ns | 1001",
        "1.0015ns | 1:10: time '1.0015ns' is not a whole number of picoseconds",
        "1.5ps | 1:10: time '1.5ps' is not a whole number of picoseconds",
        "2.000ps | 2",
        "1.2.3ns | 1:10: expected a time such as 1.5us, got '1.2.3ns'",
        "ns | 1:10: expected a time such as 1.5us, got 'ns'",
        ".ns | 1:10: expected a time such as 1.5us, got '.ns'",
        "5 | 1:10: expected a time such as 1.5us, got '5' (a time needs a unit: ps, ns, us, ms or s)",
        "5xs | 1:10: expected a time such as 1.5us, got '5xs'",
        "1-ns | 1:10: expected a time such as 1.5us, got '1-ns'",
        "5NS | 5000",
        "3ms | 3000000000",
        "12.ns | 12000"})
    void times(String text, String expected) {
        assertThat(outcome(() -> Values.time(text, "t", 1, COL))).isEqualTo(expected);
    }

    @Test
    void unitFactorsBelongToTheirKind() {
        assertThat(Values.unitFactor(Schema.Kind.INTEGER, "")).isEqualTo(1);
        assertThat(Values.unitFactor(Schema.Kind.INTEGER, "KiB")).isZero();
        assertThat(Values.unitFactor(Schema.Kind.SIZE, "")).isEqualTo(1);
        assertThat(Values.unitFactor(Schema.Kind.SIZE, "KiB")).isEqualTo(1024);
        assertThat(Values.unitFactor(Schema.Kind.SIZE, "ns")).isZero();
        assertThat(Values.unitFactor(Schema.Kind.TIME, "ps")).isEqualTo(1);
        assertThat(Values.unitFactor(Schema.Kind.TIME, "ns")).isEqualTo(1_000);
        assertThat(Values.unitFactor(Schema.Kind.TIME, "S")).isEqualTo(1_000_000_000_000L);
        assertThat(Values.unitFactor(Schema.Kind.TIME, "")).isZero();
        assertThat(Values.unitFactor(Schema.Kind.TIME, "KiB")).isZero();
        assertThat(Values.unitFactor(Schema.Kind.TEXT, "")).isZero();
        assertThat(Values.example(Schema.Kind.SIZE)).isEqualTo(Values.SIZE_EXAMPLE);
        assertThatThrownBy(() -> Values.example(Schema.Kind.TEXT)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "INLINE|DEFER ; true ; INLINE and DEFER",
        "INLINE| ; true ; 1:17: expected a flag name before or after '|' in 'INLINE|'",
        "|INLINE ; true ; 1:10: expected a flag name before or after '|' in '|INLINE'",
        "INLINE|BOGUS ; true ; 1:17: unknown flag 'BOGUS' (expected SILENT_SUCCESS, READ_FENCE, SEND_AND_SOLICIT_EVENT, INLINE, RDMA_READ_LOCAL_INVALIDATE, DEFER)",
        "INLINE|BOGUS ; false ; 1:10: unknown flag 'BOGUS' (expected SILENT_SUCCESS, READ_FENCE, SEND_AND_SOLICIT_EVENT, INLINE, RDMA_READ_LOCAL_INVALIDATE, DEFER)"})
    void flagErrorsPointAtTheNameInTheFilesOwnText(String text, boolean exact, String expected) {
        String got = outcome(() -> Values.callFlags(text, "t", 1, COL, exact));
        if (expected.equals("INLINE and DEFER")) {
            assertThat(got).isEqualTo(String.valueOf(
                    dev.rdmasim.ndk.NdkOpFlags.NDK_OP_FLAG_INLINE | dev.rdmasim.ndk.NdkOpFlags.NDK_OP_FLAG_DEFER));
        } else {
            assertThat(got).startsWith(expected);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "A.a+1:2,B.b+0x10:3KiB | true | [Buffer[mr=A.a, offset=1, length=2, position=t:1:10], Buffer[mr=B.b, offset=16, length=3072, position=t:1:18]]",
        "A.a+1,B.b+2:3 | true | 1:10: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got 'A.a+1'",
        "A.a:1,B.b+2:3 | true | 1:10: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got 'A.a:1'",
        "A.a+1:2,B.b+2 | true | 1:18: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got 'B.b+2'",
        "A.a+1:2,B.b+2 | false | 1:10: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got 'B.b+2'",
        "A.a+1:2,B.b+x:3 | true | 1:22: expected a size such as 4KiB, got 'x'",
        "A.a+1:2,B.b+2:y | true | 1:24: expected a size such as 4KiB, got 'y'",
        "A.a+1:2,B.b+2:y | false | 1:10: expected a size such as 4KiB, got 'y'",
        "A.a+1:2, | true | 1:18: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got ''",
        "A+1:2 | true | 1:10: expected an object name HOST.NAME such as A.cq, got 'A'",
        "A.a+1:2,B+2:3 | true | 1:18: expected an object name HOST.NAME such as A.cq, got 'B'"})
    void buffers(String text, boolean exact, String expected) {
        assertThat(outcome(() -> Values.buffers(text, "t", 1, COL, exact))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "B.dst+0x10 | true | Remote[mr=B.dst, offset=16, position=t:1:10]",
        "B.dst+0:4 | true | 1:10: expected a remote region MR+OFFSET such as B.dst+0, got 'B.dst+0:4'",
        "B.dst | true | 1:10: expected a remote region MR+OFFSET such as B.dst+0, got 'B.dst'",
        "B.dst+x | true | 1:16: expected a size such as 4KiB, got 'x'",
        "B.dst+x | false | 1:10: expected a size such as 4KiB, got 'x'",
        "B+0 | true | 1:10: expected an object name HOST.NAME such as A.cq, got 'B'"})
    void remotes(String text, boolean exact, String expected) {
        assertThat(outcome(() -> Values.remote(text, "t", 1, COL, exact))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0x12345678 | 305419896",
        "0xC0000005 | -1073741819",
        "0x00000000 | 0",
        "0x1234567 | 1:10: unknown status '0x1234567'",
        "0x123456789 | 1:10: unknown status '0x123456789'",
        "0x1234567g | 1:10: unknown status '0x1234567g'",
        "12345678 | 1:10: unknown status '12345678'"})
    void statusesByNumber(String text, String expected) {
        assertThat(outcome(() -> Values.status(text, "t", 1, COL))).startsWith(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "00fF7a | 00ff7a",
        "'' | ''",
        "6g | 1:10: expected bytes as hexadecimal digits such as 68656c6c6f, got '6g'",
        "g6 | 1:10: expected bytes as hexadecimal digits such as 68656c6c6f, got 'g6'",
        "abc | 1:10: expected bytes as an even number of hexadecimal digits such as 68656c6c6f, got 'abc' (3 digits)"})
    void bytes(String text, String expected) {
        assertThat(outcome(() -> Values.bytes(text, "t", 1, COL))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "byte:255 | true | Fill[kind=BYTE, value=255]",
        "byte:0 | true | Fill[kind=BYTE, value=0]",
        "byte:256 | true | 1:15: fill byte 256 is not a byte (0 to 255)",
        "byte:256 | false | 1:10: fill byte 256 is not a byte (0 to 255)",
        "PATTERN:7 | true | Fill[kind=PATTERN, value=7]",
        "pattern:x | true | 1:18: expected an integer such as 128 or 0x5A, got 'x'",
        ":5 | true | 1:10: expected a fill zero, byte:V or pattern:SEED, got ':5'",
        "byte | true | 1:10: expected a fill zero, byte:V or pattern:SEED, got 'byte'",
        "bytes:1 | true | 1:10: expected a fill zero, byte:V or pattern:SEED, got 'bytes:1'"})
    void fills(String text, boolean exact, String expected) {
        assertThat(outcome(() -> Values.fill(text, "t", 1, COL, exact))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "a=1,b=2 | true | {a=1, b=2}",
        "a= | true | {a=}",
        "=1 | true | 1:10: expected profile settings KEY=VALUE,... such as pcie.mps=512, got '=1'",
        "a=1,=2 | true | 1:14: expected profile settings KEY=VALUE,... such as pcie.mps=512, got '=2'",
        "a=1,b | true | 1:14: expected profile settings KEY=VALUE,... such as pcie.mps=512, got 'b'",
        "a=1,b | false | 1:10: expected profile settings KEY=VALUE,... such as pcie.mps=512, got 'b'",
        "a,b=1 | true | 1:10: expected profile settings KEY=VALUE,... such as pcie.mps=512, got 'a'",
        "a=1,a=2 | true | 1:14: profile setting 'a' is given twice"})
    void settings(String text, boolean exact, String expected) {
        assertThat(outcome(() -> {
            Map<String, String> m = Values.settings(text, "t", 1, COL, exact);
            return m.toString();
        })).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"A.a", "A.z", "A.A", "A.Z", "A-1_x.q-2_Z9", "0.b"})
    void objectNamesTaken(String name) {
        Values.objectName(name, "t", 1, COL);
    }

    @ParameterizedTest
    @CsvSource({".b", "A.", "A", "A.1b", "A.b c", "A.b.c", "A.@", "A.[", "A.`", "A.{", "A.b@", "A.b[", "A.b`", "A.b{",
        "@.b", "A.b/", "A.b:", "A.b+"})
    void objectNamesRefused(String name) {
        assertThatThrownBy(() -> Values.objectName(name, "t", 1, COL)).isInstanceOf(TraceError.class)
                .hasMessage("t:1:10: expected an object name HOST.NAME such as A.cq, got '" + name + "'");
    }

    @Test
    void hostNames() {
        Values.hostName("A-1_b", "t", 1, COL);
        assertThatThrownBy(() -> Values.hostName("", "t", 1, COL)).hasMessageContaining("expected a host name");
        assertThatThrownBy(() -> Values.hostName("A b", "t", 1, COL)).hasMessageContaining("got 'A b'");
        assertThat(Values.hostOf("Host-1.q")).isEqualTo("Host-1");
    }
}
