package io.sluice.otlp.consumer;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.timeout.IdleStateEvent;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import java.io.IOException;
import javax.net.ssl.SSLException;

/**
 * One gRPC (HTTP/2) connection, between Netty's frame codec and the stream multiplexer: counts its open streams, so
 * that an idle connection (no stream, nothing read or written for IdleTimeoutMs) is closed, and reports what
 * breaks the connection (a failed TLS handshake counts as an auth refusal). Event loop only.
 */
final class GrpcConn extends ChannelInboundHandlerAdapter {
    private final OtlpServer server;
    private int streams;

    GrpcConn(OtlpServer server) {
        this.server = server;
    }

    void streamOpened() {
        streams++;
    }

    void streamClosed() {
        streams--;
    }

    /** Opens the connection's window as wide as the streams' (SETTINGS only sets a stream's initial window). */
    @Override
    public void channelActive(ChannelHandlerContext c) throws Exception {
        c.writeAndFlush(new DefaultHttp2WindowUpdateFrame(OtlpServer.FLOW_WINDOW - Http2CodecUtil.DEFAULT_WINDOW_SIZE));
        super.channelActive(c);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext c, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent && streams == 0) {
            c.close();
            return;
        }
        super.userEventTriggered(c, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
        String id = server.settings().id;
        Object peer = c.channel().remoteAddress();
        if (cause.getCause() instanceof SSLException) {
            server.context().reject(Rejection.AUTH, peer, "TLS failed: " + cause.getCause().getMessage());
        } else if (cause instanceof IOException) {
            server.context().log().debug(id + ": connection from " + peer + ": " + cause);
        } else {
            server.context().reject(Rejection.MALFORMED, peer, "HTTP/2 connection failed: " + cause);
        }
        c.close();
    }

    /** Logs what a stream could not handle; the stream is reset by its handler. */
    void streamFailed(Object peer, Throwable t) {
        String id = server.settings().id;
        server.context().log().limited(Log.ERROR, id + ": request failed",
                id + ": handling a gRPC request from " + peer + " failed: " + t);
    }
}
