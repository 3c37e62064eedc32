package io.sluice.core.net.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * The responses the servers write. Headers go out in the order they are set, so each caller sets its others (and
 * {@code Connection}) after these, where it always did.
 */
public final class HttpResponses {
    private HttpResponses() {
    }

    /** An HTTP/1.1 response with {@code body}, its {@code Content-Type} and {@code Content-Length}. */
    public static FullHttpResponse full(HttpResponseStatus status, CharSequence type, byte[] body) {
        return full(status, type, Unpooled.wrappedBuffer(body), body.length);
    }

    /**
     * An HTTP/1.1 response with {@code content}, its {@code Content-Type} and a {@code Content-Length} of
     * {@code length} (which differs from the content's for an answer to HEAD: the length of the body not sent).
     */
    public static FullHttpResponse full(HttpResponseStatus status, CharSequence type, ByteBuf content, int length) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, length);
        return r;
    }

    /**
     * A whole response with {@code Connection: close} as bytes, for a connection refused before it has an HTTP codec
     * (beyond {@code MaxConnections}): status line, {@code Content-Type} (unless null), {@code Content-Length},
     * {@code Retry-After} (unless null), then the body.
     */
    public static byte[] raw(HttpResponseStatus status, String type, String retryAfter, byte[] body) {
        byte[] head = ("HTTP/1.1 " + status.code() + " " + status.reasonPhrase() + "\r\n"
                + (type == null ? "" : "Content-Type: " + type + "\r\n")
                + "Content-Length: " + body.length + "\r\n"
                + (retryAfter == null ? "" : "Retry-After: " + retryAfter + "\r\n")
                + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }
}
