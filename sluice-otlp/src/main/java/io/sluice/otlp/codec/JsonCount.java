package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;

/** Counts the items of an OTLP/JSON request by walking its arrays, for the decoders' count methods. */
final class JsonCount {
    private JsonCount() {
    }

    /**
     * The number of elements of {@code items} in every {@code scopes} element of every {@code groups} element, or,
     * with {@code points} set (metrics), of the {@code dataPoints} of each item's data member.
     */
    static int items(byte[] buf, int off, int len, String groups, String scopes, String items, byte[][] data)
            throws OtlpFormatException {
        JsonDoc doc = new JsonDoc();
        doc.reset(buf, off);
        JsonFields req = doc.object(0, off, len);
        JsonFields gs = doc.arrayOrEmpty(req, Keys.b(groups), Keys.b(JsonEnvelope.snake(groups)), 1);
        byte[] sc = Keys.b(scopes);
        byte[] scSnake = Keys.b(JsonEnvelope.snake(scopes));
        byte[] it = Keys.b(items);
        byte[] itSnake = Keys.b(JsonEnvelope.snake(items));
        int n = 0;
        for (int g = 0; g < gs.size(); g++) {
            JsonFields ss = doc.arrayOrEmpty(doc.object(gs, g, 2), sc, scSnake, 3);
            for (int s = 0; s < ss.size(); s++) {
                JsonFields is = doc.arrayOrEmpty(doc.object(ss, s, 4), it, itSnake, 5);
                if (data == null) {
                    n += is.size();
                    continue;
                }
                for (int i = 0; i < is.size(); i++) {
                    JsonFields metric = doc.object(is, i, 6);
                    int last = -1;
                    for (int k = 0; k < data.length; k += 2) {
                        last = Math.max(last, doc.find(metric, data[k], data[k + 1]));
                    }
                    if (last >= 0) {
                        n += doc.arrayOrEmpty(doc.object(metric, last, 7), JsonMetricsDecoder.DATA_POINTS,
                                JsonMetricsDecoder.DATA_POINTS_SNAKE, 8).size();
                    }
                }
            }
        }
        return n;
    }
}
