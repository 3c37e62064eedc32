package io.sluice.otlp.producer;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/**
 * producer.OTLP's OTLP/HTTP peer: the JDK's HTTP server on 127.0.0.1:0, parsing bodies with the official generated
 * classes. It keeps every request it accepted and the headers and path of every request, and answers from a script
 * (200 with an empty response when the script is empty).
 */
final class HttpReceiver implements AutoCloseable {
    /** One scripted answer: status, extra headers, and a partial success to report with a 200. */
    record Answer(int status, Map<String, String> headers, long rejected, String message) {
        static Answer status(int status, Map<String, String> headers) {
            return new Answer(status, headers, 0, "bad data");
        }

        static Answer partial(long rejected, String message) {
            return new Answer(200, Map.of(), rejected, message);
        }

        /** No answer at all: the exchange is left open. */
        static Answer hang() {
            return new Answer(-1, Map.of(), 0, "");
        }
    }

    final List<ExportLogsServiceRequest> logs = new CopyOnWriteArrayList<>();
    final List<ExportMetricsServiceRequest> metrics = new CopyOnWriteArrayList<>();
    final List<Headers> headers = new CopyOnWriteArrayList<>();
    final List<String> paths = new CopyOnWriteArrayList<>();
    final AtomicInteger calls = new AtomicInteger();
    final Queue<Answer> script = new ConcurrentLinkedQueue<>();
    private final HttpServer server;

    HttpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool()); // a hanging answer holds one thread only
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    int logRecords() {
        return logs.stream().flatMap(r -> r.getResourceLogsList().stream()).flatMap(r -> r.getScopeLogsList().stream())
                .mapToInt(s -> s.getLogRecordsCount()).sum();
    }

    private void handle(HttpExchange ex) throws IOException {
        calls.incrementAndGet();
        headers.add(ex.getRequestHeaders());
        paths.add(ex.getRequestURI().getPath());
        byte[] raw = ex.getRequestBody().readAllBytes();
        InputStream in = new ByteArrayInputStream(raw);
        if ("gzip".equals(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
            in = new GZIPInputStream(in);
        }
        byte[] body = in.readAllBytes();
        Answer a = script.poll();
        if (a != null && a.status() < 0) {
            return; // never answered; the client gives up and closes the connection
        }
        if (a != null && a.status() != 200) {
            a.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
            byte[] status = com.google.rpc.Status.newBuilder().setCode(3).setMessage(a.message()).build().toByteArray();
            ex.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            reply(ex, a.status(), status);
            return;
        }
        byte[] response;
        if (ex.getRequestURI().getPath().endsWith("/v1/logs")) {
            logs.add(ExportLogsServiceRequest.parseFrom(body));
            ExportLogsServiceResponse.Builder r = ExportLogsServiceResponse.newBuilder();
            if (a != null) {
                r.setPartialSuccess(ExportLogsPartialSuccess.newBuilder().setRejectedLogRecords(a.rejected())
                        .setErrorMessage(a.message()));
            }
            response = r.build().toByteArray();
        } else {
            metrics.add(ExportMetricsServiceRequest.parseFrom(body));
            response = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
        }
        ex.getResponseHeaders().add("Content-Type", "application/x-protobuf");
        reply(ex, 200, response);
    }

    private static void reply(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
