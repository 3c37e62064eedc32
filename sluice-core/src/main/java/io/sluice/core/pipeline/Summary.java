package io.sluice.core.pipeline;

/** What every plugin counted, as the lines printed at shutdown. */
final class Summary {
    private Summary() {
    }

    static String of(Pipeline p) {
        // Numbers, not String.format: the summary is written on the way out (see Numbers).
        String nl = System.lineSeparator();
        StringBuilder b = new StringBuilder("summary after ").append(Numbers.fixed(p.runNanos() / 1e9, 3)).append(" s:");
        for (PluginStats s : p.stats()) {
            Numbers.appendPadded(b.append(nl).append("  "), s.id(), 24).append(' ');
            Numbers.appendPadded(b, s.type(), 22).append(" in ");
            Numbers.appendGrouped(b, s.in()).append("  out ");
            Numbers.appendGrouped(b, s.out());
            if (s.dropped() > 0) {
                Numbers.appendGrouped(b.append("  dropped "), s.dropped());
            }
            if (s.discarded() > 0) {
                Numbers.appendGrouped(b.append("  discarded "), s.discarded());
            }
            if (s.failed() > 0) {
                Numbers.appendGrouped(b.append("  failed "), s.failed());
            }
        }
        if (p.unroutedDiscarded() > 0) {
            Numbers.appendGrouped(b.append(nl).append("  discarded (no reader): "), p.unroutedDiscarded());
        }
        return b.toString();
    }
}
