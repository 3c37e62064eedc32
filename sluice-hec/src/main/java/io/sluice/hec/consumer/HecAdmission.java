package io.sluice.hec.consumer;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;

/**
 * consumer.HEC's endpoints, and what a request must pass on its head alone, before any of its body is read into
 * memory: method, token, indexer-ack channel, {@code MaxPendingEvents}, stopping, {@code Content-Encoding}.
 */
final class HecAdmission {
    private final HecServer server;
    private final HecServer.Settings settings;

    HecAdmission(HecServer server) {
        this.server = server;
        this.settings = server.settings;
    }

    /**
     * Sets the request's endpoint from its {@code path} (without a trailing slash) and checks its head: null when
     * its body is to be received, else the answer to give without storing it (health's, or a refusal).
     */
    HecAnswer admit(HecRequest q, String path) {
        switch (path) {
            case "/services/collector/health", "/services/collector/health/1.0" -> {
                q.kind = HecRequest.HEALTH;
                HecStatus s = server.ingest.pending() >= settings.maxPendingEvents ? HecStatus.UNHEALTHY_QUEUES_FULL
                        : HecStatus.HEALTHY;
                return new HecAnswer(s, s.body(), null, null);
            }
            case "/services/collector", "/services/collector/event", "/services/collector/event/1.0" -> {
                q.kind = HecRequest.EVENT;
                return admitIngest(q);
            }
            case "/services/collector/raw", "/services/collector/raw/1.0" -> {
                q.kind = HecRequest.RAW;
                return admitIngest(q);
            }
            case "/services/collector/ack", "/services/collector/ack/1.0" -> {
                q.kind = HecRequest.ACK;
                return admitAck(q);
            }
            default -> {
                return HecAnswer.refuse(HecStatus.NOT_FOUND, "unknown path " + path);
            }
        }
    }

    private HecAnswer admitIngest(HecRequest q) {
        HttpRequest r = q.head;
        if (r.method() != HttpMethod.POST && r.method() != HttpMethod.PUT) {
            return HecAnswer.refuse(HecStatus.METHOD_NOT_ALLOWED, r.method() + " " + q.uri.path());
        }
        HecStatus denied = server.tokens.authorize(q);
        if (denied != null) {
            return HecAnswer.refuse(denied, denied.text());
        }
        if (settings.useAck) {
            String channel = AckChannels.channelOf(q.head, q.uri);
            if (channel == null) {
                return HecAnswer.refuse(HecStatus.CHANNEL_MISSING, "no channel");
            }
            q.ackChannel = server.acks.open(channel);
            if (q.ackChannel == null) {
                return HecAnswer.refuse(HecStatus.SERVER_BUSY, "more than " + AckChannels.MAX_CHANNELS + " ack channels");
            }
            if (q.ackChannel.unqueried() >= AckChannels.MAX_UNQUERIED) {
                return HecAnswer.refuse(HecStatus.SERVER_BUSY, "channel " + channel + " has " + AckChannels.MAX_UNQUERIED
                        + " acks nobody queried");
            }
        }
        if (server.stopping()) {
            return HecAnswer.refuse(HecStatus.SERVER_BUSY, "stopping");
        }
        if (server.ingest.pending() >= settings.maxPendingEvents) {
            return HecAnswer.refuse(HecStatus.SERVER_BUSY, "MaxPendingEvents (" + settings.maxPendingEvents
                    + ") events accepted and not yet delivered");
        }
        String encoding = r.headers().get(HttpHeaderNames.CONTENT_ENCODING);
        if (encoding != null && encoding.equalsIgnoreCase("gzip")) {
            q.gzip = true;
        } else if (encoding != null && !encoding.equalsIgnoreCase("identity")) {
            return HecAnswer.refuse(HecStatus.INVALID_DATA_FORMAT, "unsupported Content-Encoding " + encoding);
        }
        q.perByte = q.gzip ? 1 : 2;
        q.max = settings.maxBodySize;
        return null;
    }

    private HecAnswer admitAck(HecRequest q) {
        HecStatus denied = server.tokens.authorize(q);
        if (denied != null) {
            return HecAnswer.refuse(denied, denied.text());
        }
        if (!settings.useAck) {
            return HecAnswer.refuse(HecStatus.ACK_DISABLED, "ack query with UseAck off");
        }
        String channel = AckChannels.channelOf(q.head, q.uri);
        if (channel == null) {
            return HecAnswer.refuse(HecStatus.CHANNEL_MISSING, "ack query without a channel");
        }
        q.ackChannel = server.acks.get(channel);
        if (q.ackChannel == null) {
            return HecAnswer.refuse(HecStatus.INVALID_CHANNEL, "ack query on unknown channel " + channel);
        }
        q.max = AckChannels.MAX_BODY;
        return null;
    }
}
