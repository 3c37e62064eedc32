package io.sluice.hec.producer;

/** One HTTP answer from a collector: status, body, and Retry-After in milliseconds (-1 when absent). */
public record HecResponse(int status, String body, long retryAfterMillis) {
    /** 200 with HEC's success body; what a discarding sink answers. */
    public static final HecResponse SUCCESS = new HecResponse(200, "{\"text\":\"Success\",\"code\":0}", -1);

    /** HEC's {@code text}, or the body when it is not HEC JSON. */
    public String text() {
        String t = HecHttp.stringField(body, "text");
        return t != null ? t : body;
    }

    /** HEC's {@code code}, or -1. */
    public int code() {
        return (int) HecHttp.longField(body, "code", -1);
    }
}
