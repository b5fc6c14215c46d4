package dev.rdmasim.traces.format;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How one argument with {@code ${...}} expressions is evaluated per expansion of a repeat body.
 * Numbers and the offsets and lengths of buffers are computed straight from the expressions (the
 * region names and literal parts were checked once, when the body was read); other kinds are
 * evaluated to text and parsed like a written value.
 */
abstract class DynamicSlot {
    final int slot;

    DynamicSlot(int slot) {
        this.slot = slot;
    }

    /** Stores the slot's parsed value; returns its text, or {@link TraceLine#COMPUTED} when only the value was made. */
    abstract String eval(long[] vars, StringBuilder scratch, long[] numbers, Object[] objects);

    /** The evaluator for slot {@code slot} of {@code kw}, whose value is {@code src[from, to)} starting at column {@code col}. */
    static DynamicSlot compile(Schema.Keyword kw, int slot, Template t, String src, int from, int to, int col,
            String[] scope, int scopeSize, String file, int line) {
        Schema.Kind kind = kw.args[slot].kind();
        switch (kind) {
            case INTEGER, SIZE, TIME:
                return new NumberSlot(slot, NumberTemplate.compile(t, kind, file, line, col));
            case BUFFERS:
                return BuffersSlot.compile(slot, src, from, to, col, scope, scopeSize, file, line);
            case REMOTE:
                return RemoteSlot.compile(slot, src, from, to, col, scope, scopeSize, file, line);
            default:
                return new TextSlot(kw, slot, t, file, line, col);
        }
    }

    /** Index of {@code ch} in src[from, to) outside expressions, or -1. */
    static int indexOutside(String src, char ch, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = src.charAt(i);
            if (c == ch) {
                return i;
            }
            if (c == '$' && i + 1 < to && src.charAt(i + 1) == '{') {
                i = src.indexOf('}', i + 2);
            }
        }
        return -1;
    }

    private static final class TextSlot extends DynamicSlot {
        private final Schema.Keyword keyword;
        private final Template template;
        private final String file;
        private final int line;
        private final int column;

        TextSlot(Schema.Keyword keyword, int slot, Template template, String file, int line, int column) {
            super(slot);
            this.keyword = keyword;
            this.template = template;
            this.file = file;
            this.line = line;
            this.column = column;
        }

        @Override
        String eval(long[] vars, StringBuilder scratch, long[] numbers, Object[] objects) {
            return Values.parseSlot(keyword, slot, template.eval(vars, scratch), file, line, column, false, numbers, objects);
        }
    }

    private static final class NumberSlot extends DynamicSlot {
        private final NumberTemplate number;

        NumberSlot(int slot, NumberTemplate number) {
            super(slot);
            this.number = number;
        }

        @Override
        String eval(long[] vars, StringBuilder scratch, long[] numbers, Object[] objects) {
            numbers[slot] = number.eval(vars, scratch);
            return TraceLine.COMPUTED;
        }
    }

    /** A region name: checked once when literal, else evaluated and checked each time. */
    private static final class RegionName {
        private final String literal;
        private final Template template;
        private final String file;
        private final int line;
        private final int column;

        RegionName(Template t, String file, int line, int column) {
            this.template = t;
            this.literal = t.literal;
            this.file = file;
            this.line = line;
            this.column = column;
            if (literal != null) {
                Values.objectName(literal, file, line, column);
            }
        }

        String eval(long[] vars, StringBuilder scratch) {
            if (literal != null) {
                return literal;
            }
            String name = template.eval(vars, scratch);
            Values.objectName(name, file, line, column);
            return name;
        }
    }

    private static final class BuffersSlot extends DynamicSlot {
        private final RegionName[] regions;
        private final NumberTemplate[] offsets;
        private final NumberTemplate[] lengths;
        private final Position[] positions;

        private BuffersSlot(int slot, RegionName[] regions, NumberTemplate[] offsets, NumberTemplate[] lengths,
                Position[] positions) {
            super(slot);
            this.regions = regions;
            this.offsets = offsets;
            this.lengths = lengths;
            this.positions = positions;
        }

        static BuffersSlot compile(int slot, String src, int from, int to, int col, String[] scope, int scopeSize,
                String file, int line) {
            List<RegionName> regions = new ArrayList<>();
            List<NumberTemplate> offsets = new ArrayList<>();
            List<NumberTemplate> lengths = new ArrayList<>();
            List<Position> positions = new ArrayList<>();
            int start = from;
            while (true) {
                int comma = indexOutside(src, ',', start, to);
                int end = comma < 0 ? to : comma;
                int c = col + start - from;
                int plus = indexOutside(src, '+', start, end);
                int colon = plus < 0 ? -1 : indexOutside(src, ':', plus, end);
                if (colon < 0) {
                    throw Values.error(file, line, c, "expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got '"
                            + src.substring(start, end) + "'");
                }
                regions.add(new RegionName(Template.compile(src, start, plus, c, scope, scopeSize, file, line), file, line, c));
                int oc = col + plus + 1 - from;
                offsets.add(NumberTemplate.compile(Template.compile(src, plus + 1, colon, oc, scope, scopeSize, file, line),
                        Schema.Kind.SIZE, file, line, oc));
                int lc = col + colon + 1 - from;
                lengths.add(NumberTemplate.compile(Template.compile(src, colon + 1, end, lc, scope, scopeSize, file, line),
                        Schema.Kind.SIZE, file, line, lc));
                positions.add(new Position(file, line, c));
                if (comma < 0) {
                    break;
                }
                start = comma + 1;
            }
            return new BuffersSlot(slot, regions.toArray(new RegionName[0]), offsets.toArray(new NumberTemplate[0]),
                    lengths.toArray(new NumberTemplate[0]), positions.toArray(new Position[0]));
        }

        @Override
        String eval(long[] vars, StringBuilder scratch, long[] numbers, Object[] objects) {
            if (regions.length == 1) {
                objects[slot] = Collections.singletonList(buffer(0, vars, scratch));
            } else {
                Buffer[] b = new Buffer[regions.length];
                for (int i = 0; i < b.length; i++) {
                    b[i] = buffer(i, vars, scratch);
                }
                objects[slot] = List.of(b);
            }
            return TraceLine.COMPUTED;
        }

        private Buffer buffer(int i, long[] vars, StringBuilder scratch) {
            return new Buffer(regions[i].eval(vars, scratch), offsets[i].eval(vars, scratch), lengths[i].eval(vars, scratch),
                    positions[i]);
        }
    }

    private static final class RemoteSlot extends DynamicSlot {
        private final RegionName region;
        private final NumberTemplate offset;
        private final Position position;

        private RemoteSlot(int slot, RegionName region, NumberTemplate offset, Position position) {
            super(slot);
            this.region = region;
            this.offset = offset;
            this.position = position;
        }

        static RemoteSlot compile(int slot, String src, int from, int to, int col, String[] scope, int scopeSize,
                String file, int line) {
            int plus = indexOutside(src, '+', from, to);
            if (plus < 0 || indexOutside(src, ':', from, to) >= 0) {
                throw Values.error(file, line, col, "expected a remote region MR+OFFSET such as B.dst+0, got '"
                        + src.substring(from, to) + "'");
            }
            RegionName region = new RegionName(Template.compile(src, from, plus, col, scope, scopeSize, file, line), file,
                    line, col);
            int oc = col + plus + 1 - from;
            NumberTemplate offset = NumberTemplate.compile(Template.compile(src, plus + 1, to, oc, scope, scopeSize, file,
                    line), Schema.Kind.SIZE, file, line, oc);
            return new RemoteSlot(slot, region, offset, new Position(file, line, col));
        }

        @Override
        String eval(long[] vars, StringBuilder scratch, long[] numbers, Object[] objects) {
            objects[slot] = new Remote(region.eval(vars, scratch), offset.eval(vars, scratch), position);
            return TraceLine.COMPUTED;
        }
    }
}
