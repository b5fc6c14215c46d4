package dev.rdmasim.kernel.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatsRegistryTest {

    /** Builds the same small model every time, so that two calls give registries with identical values. */
    private static StatsRegistry sampleRegistry() {
        FakeTime time = new FakeTime();
        StatsRegistry registry = new StatsRegistry();
        StatsGroup dma = registry.register(new StatsGroup("nicA.dma", time));
        Counter readBytes = dma.counter("readBytes", "bytes", "Bytes read from host memory");
        dma.formula("readBandwidth", "bytes/ps", "Read bandwidth", () -> (double) readBytes.value() / time.nowPs());
        TimeAverage tags = dma.timeAverage("tagsInUse", "tags", "Outstanding read tags");
        Histogram latency = dma.histogram("readLatency", "ps", "Read request to completion");
        dma.histogram("writeLatency", "ps", "Write request to completion");
        StatsGroup tx = registry.register(new StatsGroup("nicA.tx", time));
        Counter packets = tx.counter("packets", "packets", "Packets sent");
        tx.formula("bytesPerPacket", "bytes", "Mean packet size", () -> 0.0 / packets.value());

        time.advance(10);
        tags.set(4);
        time.advance(30);
        readBytes.add(4096);
        for (long v = 1; v <= 1000; v++) {
            latency.record(v);
        }
        return registry;
    }

    private static String json(StatsRegistry registry) throws IOException {
        StringWriter out = new StringWriter();
        registry.writeJson(out);
        return out.toString();
    }

    @Test
    void writesExpectedJson() throws IOException {
        assertThat(json(sampleRegistry())).isEqualTo("""
                {
                  "nicA.dma.readBytes": {
                    "type": "counter",
                    "unit": "bytes",
                    "description": "Bytes read from host memory",
                    "value": 4096
                  },
                  "nicA.dma.readBandwidth": {
                    "type": "formula",
                    "unit": "bytes/ps",
                    "description": "Read bandwidth",
                    "value": 102.4
                  },
                  "nicA.dma.tagsInUse": {
                    "type": "timeAverage",
                    "unit": "tags",
                    "description": "Outstanding read tags",
                    "average": 3.0,
                    "max": 4
                  },
                  "nicA.dma.readLatency": {
                    "type": "histogram",
                    "unit": "ps",
                    "description": "Read request to completion",
                    "count": 1000,
                    "min": 1,
                    "max": 1000,
                    "mean": 500.5,
                    "p50": 500,
                    "p90": 900,
                    "p99": 990,
                    "p999": 999
                  },
                  "nicA.dma.writeLatency": {
                    "type": "histogram",
                    "unit": "ps",
                    "description": "Write request to completion",
                    "count": 0,
                    "min": null,
                    "max": null,
                    "mean": null,
                    "p50": null,
                    "p90": null,
                    "p99": null,
                    "p999": null
                  },
                  "nicA.tx.packets": {
                    "type": "counter",
                    "unit": "packets",
                    "description": "Packets sent",
                    "value": 0
                  },
                  "nicA.tx.bytesPerPacket": {
                    "type": "formula",
                    "unit": "bytes",
                    "description": "Mean packet size",
                    "value": null
                  }
                }
                """);
    }

    @Test
    void jsonParsesBackWithKeysInRegistrationOrder() throws IOException {
        Map<String, Map<String, String>> parsed = new LinkedHashMap<>();
        try (JsonParser parser = new JsonFactory().createParser(json(sampleRegistry()))) {
            assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String stat = parser.currentName();
                assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
                Map<String, String> fields = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String field = parser.currentName();
                    JsonToken value = parser.nextToken();
                    fields.put(field, value == JsonToken.VALUE_NULL ? null : parser.getText());
                }
                parsed.put(stat, fields);
            }
            assertThat(parser.nextToken()).isNull();
        }

        assertThat(parsed.keySet()).containsExactly("nicA.dma.readBytes", "nicA.dma.readBandwidth",
                "nicA.dma.tagsInUse", "nicA.dma.readLatency", "nicA.dma.writeLatency", "nicA.tx.packets",
                "nicA.tx.bytesPerPacket");
        assertThat(parsed.get("nicA.dma.tagsInUse")).containsEntry("type", "timeAverage")
                .containsEntry("average", "3.0").containsEntry("max", "4");
        assertThat(parsed.get("nicA.dma.readLatency")).containsEntry("p99", "990");
        assertThat(parsed.get("nicA.dma.writeLatency")).containsEntry("count", "0").containsEntry("p50", null);
    }

    @Test
    void dumpsAreDeterministic() throws IOException {
        assertThat(json(sampleRegistry())).isEqualTo(json(sampleRegistry()));
        assertThat(sampleRegistry().toText()).isEqualTo(sampleRegistry().toText());
        StatsRegistry registry = sampleRegistry();
        assertThat(json(registry)).isEqualTo(json(registry));
    }

    @Test
    void writeJsonFlushesButDoesNotCloseTheWriter() throws IOException {
        StringWriter out = new StringWriter();
        StatsRegistry registry = sampleRegistry();
        registry.writeJson(out);
        out.write("still open");

        assertThat(out.toString()).endsWith("}\nstill open");
    }

    /** Everything reaches the writer beneath a buffered one: the dump is complete without closing anything. */
    @Test
    void writeJsonFlushesABufferedWriter() throws IOException {
        StringWriter target = new StringWriter();
        java.io.BufferedWriter buffered = new java.io.BufferedWriter(target, 1 << 16);
        sampleRegistry().writeJson(buffered);

        assertThat(target.toString()).isEqualTo(json(sampleRegistry()));
    }

    @Test
    void emptyRegistryWritesEmptyObject() throws IOException {
        assertThat(json(new StatsRegistry())).isEqualTo("{ }\n");
    }

    @Test
    void textTableIsAligned() {
        assertThat(sampleRegistry().toText()).isEqualTo("""
                name                          value  unit      description
                nicA.dma.readBytes             4096  bytes     Bytes read from host memory
                nicA.dma.readBandwidth        102.4  bytes/ps  Read bandwidth
                nicA.dma.tagsInUse                3  tags      Outstanding read tags
                nicA.dma.tagsInUse::max           4  tags      Outstanding read tags
                nicA.dma.readLatency::count    1000  samples   Read request to completion
                nicA.dma.readLatency::min         1  ps        Read request to completion
                nicA.dma.readLatency::mean    500.5  ps        Read request to completion
                nicA.dma.readLatency::p50       500  ps        Read request to completion
                nicA.dma.readLatency::p90       900  ps        Read request to completion
                nicA.dma.readLatency::p99       990  ps        Read request to completion
                nicA.dma.readLatency::p999      999  ps        Read request to completion
                nicA.dma.readLatency::max      1000  ps        Read request to completion
                nicA.dma.writeLatency::count      0  samples   Write request to completion
                nicA.dma.writeLatency::min        -  ps        Write request to completion
                nicA.dma.writeLatency::mean       -  ps        Write request to completion
                nicA.dma.writeLatency::p50        -  ps        Write request to completion
                nicA.dma.writeLatency::p90        -  ps        Write request to completion
                nicA.dma.writeLatency::p99        -  ps        Write request to completion
                nicA.dma.writeLatency::p999       -  ps        Write request to completion
                nicA.dma.writeLatency::max        -  ps        Write request to completion
                nicA.tx.packets                   0  packets   Packets sent
                nicA.tx.bytesPerPacket          nan  bytes     Mean packet size
                """);
    }

    @Test
    void duplicateGroupPathsAreRejected() {
        FakeTime time = new FakeTime();
        StatsRegistry registry = new StatsRegistry();
        registry.register(new StatsGroup("nicA.dma", time));

        assertThatIllegalArgumentException().isThrownBy(() -> registry.register(new StatsGroup("nicA.dma", time)))
                .withMessageContaining("nicA.dma");
        assertThat(registry.groups()).hasSize(1);
    }

    @Test
    void groupsAreKeptInRegistrationOrderAndResetTogether() {
        FakeTime time = new FakeTime();
        StatsRegistry registry = new StatsRegistry();
        List<Counter> counters = new ArrayList<>();
        for (String path : new String[] {"z", "a", "m.n"}) {
            counters.add(registry.register(new StatsGroup(path, time)).counter("c", "u", "d"));
        }
        counters.forEach(c -> c.add(3));

        registry.reset();

        assertThat(registry.groups()).extracting(StatsGroup::path).containsExactly("z", "a", "m.n");
        assertThat(counters).allSatisfy(c -> assertThat(c.value()).isZero());
    }

    @Test
    void dumpsAndResetRefreshEachGroupFirst() throws IOException {
        FakeTime time = new FakeTime();
        StatsRegistry registry = new StatsRegistry();
        StatsGroup lazy = registry.register(new StatsGroup("lazy", time));
        Counter seen = lazy.counter("seen", "u", "d");
        int[] refreshes = {0};
        lazy.setRefresh(() -> {
            refreshes[0]++;
            seen.add(5);
        });

        StringWriter json = new StringWriter();
        registry.writeJson(json);
        assertThat(json.toString()).contains("\"value\": 5");
        assertThat(registry.toText()).containsPattern("lazy\\.seen +10 ");
        registry.reset();

        assertThat(refreshes[0]).isEqualTo(3);
        assertThat(seen.value()).isZero();
    }

    /** Infinite formulas read inf and -inf in the table and null in JSON, which has no infinity. */
    @Test
    void infiniteValuesAreWrittenAsWordsOrNull() throws IOException {
        FakeTime time = new FakeTime();
        StatsRegistry registry = new StatsRegistry();
        StatsGroup g = registry.register(new StatsGroup("g", time));
        g.formula("up", "x", "d", () -> 1.0 / 0.0);
        g.formula("down", "x", "d", () -> -1.0 / 0.0);
        g.formula("zero", "x", "d", () -> -0.0);
        g.formula("small", "x", "d", () -> 0.000123456789);

        assertThat(registry.toText()).isEqualTo("""
                name           value  unit  description
                g.up             inf  x     d
                g.down          -inf  x     d
                g.zero             0  x     d
                g.small  0.000123457  x     d
                """);
        assertThat(json(registry)).contains("\"g.up\": {\n    \"type\": \"formula\",\n    \"unit\": \"x\",\n"
                + "    \"description\": \"d\",\n    \"value\": null\n  }")
                .contains("\"g.down\": {\n    \"type\": \"formula\",\n    \"unit\": \"x\",\n"
                + "    \"description\": \"d\",\n    \"value\": null\n  }");
    }

    /** Lines end at their last character: empty units and descriptions leave no trailing blanks. */
    @Test
    void textLinesHaveNoTrailingBlanks() {
        FakeTime time = new FakeTime();
        StatsRegistry registry = new StatsRegistry();
        StatsGroup g = registry.register(new StatsGroup("g", time));
        g.counter("bare", "", "").add(7);
        g.counter("described", "things", "").add(12345);
        g.counter("full", "u", "a description").add(1);

        assertThat(registry.toText()).isEqualTo("""
                name         value  unit    description
                g.bare           7
                g.described  12345  things
                g.full           1  u       a description
                """);
    }
}
