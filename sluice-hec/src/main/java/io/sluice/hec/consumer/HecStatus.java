package io.sluice.hec.consumer;

import io.sluice.core.pipeline.Rejection;
import java.nio.charset.StandardCharsets;

/**
 * Splunk's HEC status codes: the HTTP status and the JSON body {@code {"text":..,"code":..}} Splunk answers
 * with, so that clients written against Splunk (retry on 503/code 9, give up on 400/code 6…) behave the same.
 */
public enum HecStatus {
    SUCCESS(200, 0, "Success"),
    TOKEN_DISABLED(403, 1, "Token disabled"),
    TOKEN_REQUIRED(401, 2, "Token is required"),
    INVALID_AUTHORIZATION(401, 3, "Invalid authorization"),
    INVALID_TOKEN(403, 4, "Invalid token"),
    NO_DATA(400, 5, "No data"),
    INVALID_DATA_FORMAT(400, 6, "Invalid data format"),
    INCORRECT_INDEX(400, 7, "Incorrect index"),
    INTERNAL_ERROR(500, 8, "Internal server error"),
    SERVER_BUSY(503, 9, "Server is busy"),
    CHANNEL_MISSING(400, 10, "Data channel is missing"),
    INVALID_CHANNEL(400, 11, "Invalid data channel"),
    EVENT_REQUIRED(400, 12, "Event field is required"),
    EVENT_BLANK(400, 13, "Event field cannot be blank"),
    ACK_DISABLED(400, 14, "ACK is disabled"),
    HEALTHY(200, 17, "HEC is healthy"),
    UNHEALTHY_QUEUES_FULL(503, 18, "HEC is unhealthy, queues are full"),
    /** Not a HEC code: the body is larger than MaxBodySize. Splunk answers 413 with this text. */
    TOO_LARGE(413, 27, "Content-Length of request is too large"),
    /**
     * Not a HEC code: more events than {@code MaxEventsPerRequest}. 413 like an oversized body, since that is what
     * it is (clients that split on 413, as {@code producer.SplunkHEC} does, send it again in halves).
     */
    TOO_MANY_EVENTS(413, 27, "Too many events in request"),
    /** Not a HEC code: an unknown path. */
    NOT_FOUND(404, 404, "The requested URL was not found on this server."),
    METHOD_NOT_ALLOWED(405, 405, "Method not allowed");

    private final int http;
    private final int code;
    private final String text;
    private final byte[] body;

    HecStatus(int http, int code, String text) {
        this.http = http;
        this.code = code;
        this.text = text;
        this.body = ("{\"text\":\"" + text + "\",\"code\":" + code + "}").getBytes(StandardCharsets.US_ASCII);
    }

    public int http() {
        return http;
    }

    public int code() {
        return code;
    }

    public String text() {
        return text;
    }

    /**
     * How a refusal with this status is counted on {@code /metrics}: 401/403 and an index the token may not write
     * auth (the bytes were fine, the permission was not), other 4xx malformed, 413 too large, 503 busy; null for
     * answers that refuse nothing (success, health, internal errors).
     */
    public Rejection rejection() {
        return switch (this) {
            case SUCCESS, HEALTHY, UNHEALTHY_QUEUES_FULL, INTERNAL_ERROR -> null;
            case TOKEN_DISABLED, TOKEN_REQUIRED, INVALID_AUTHORIZATION, INVALID_TOKEN, INCORRECT_INDEX -> Rejection.AUTH;
            case TOO_LARGE, TOO_MANY_EVENTS -> Rejection.TOO_LARGE;
            case SERVER_BUSY -> Rejection.BUSY;
            default -> Rejection.MALFORMED;
        };
    }

    /** A refused memory reservation ({@link io.sluice.core.message.RequestMemory#refusal()}) in Splunk's words. */
    static HecStatus of(Rejection refusal) {
        return refusal == Rejection.TOO_LARGE ? TOO_LARGE : SERVER_BUSY;
    }

    /** The JSON body, shared: never modify. */
    byte[] body() {
        return body;
    }

    /** The body with Splunk's {@code invalid-event-number} (0-based index of the failing event). */
    byte[] body(int invalidEvent) {
        if (invalidEvent < 0) {
            return body;
        }
        return ("{\"text\":\"" + text + "\",\"code\":" + code + ",\"invalid-event-number\":" + invalidEvent + "}")
                .getBytes(StandardCharsets.US_ASCII);
    }
}
