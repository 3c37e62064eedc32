package io.sluice.otlp.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.RetryInfo;
import io.grpc.Status;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Backpressure in OTLP's own words: while records wait for a pipeline that does not deliver, or the budget is spent,
 * requests get HTTP 503 with Retry-After and a RetryInfo, gRPC 14 UNAVAILABLE with a RetryInfo in
 * grpc-status-details-bin; the waiting request is not answered until its records were delivered; a failed delivery
 * is answered busy, never success; a request the budget could never hold is too large (not retryable).
 */
@Timeout(60)
class OtlpBackpressureTest {
    private static final String PROTO = "Content-Type: application/x-protobuf";

    private Harness h;

    /**
     * The blocked requests each get a thread of their own: the common pool (one thread on two cores, and on some JDKs
     * used whatever the parallelism) would run the senders after the first one, which waits on purpose.
     */
    private final java.util.concurrent.ExecutorService senders = java.util.concurrent.Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
        senders.shutdownNow();
    }

    private static long retrySeconds(Harness.Reply r) throws Exception {
        com.google.rpc.Status s = com.google.rpc.Status.parseFrom(r.body());
        assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE.value());
        assertThat(s.getDetailsCount()).isEqualTo(1);
        return s.getDetails(0).unpack(RetryInfo.class).getRetryDelay().getSeconds();
    }

    private void assertBusy() throws Exception {
        Harness.Reply r = Harness.curl(h.httpUrl("/v1/logs"), Requests.logsBytes(1), "-H", PROTO);
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.headers()).containsEntry("retry-after", "1");
        assertThat(retrySeconds(r)).isEqualTo(1);
        try (GrpcPeer g = new GrpcPeer(h.grpcPort)) {
            GrpcPeer.Result res = g.call(GrpcPeer.LOGS, Requests.logsBytes(1), null);
            assertThat(res.code()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(res.retrySeconds()).isEqualTo(1);
        }
    }

    @Test
    void recordsWaitingForDeliveryMakeLaterRequestsBusyAndTheFirstIsAnsweredOnlyOnDelivery() throws Exception {
        h = new Harness("bp-pending", Map.of("MaxPendingRecords", 2));
        h.out().hold();
        CompletableFuture<Harness.Reply> first = CompletableFuture.supplyAsync(() -> {
            try {
                return Harness.curl(h.httpUrl("/v1/logs"), Requests.logsBytes(3), "-H", PROTO);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }, senders);
        PipelineHarness.await("the first request's records to be published", 20_000, () -> h.stats().in() == 3);
        assertBusy();
        assertThat(first).isNotDone(); // nothing acknowledged before delivery
        assertThat(h.received()).isEmpty();
        h.out().open();
        Harness.Reply r = first.get(20, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
        assertThat(h.received()).hasSize(3);
        assertThat(h.stats().rejected(Rejection.BUSY)).isEqualTo(2);
        h.awaitBudgetEmpty();
        // room again: accepted
        assertThat(Harness.curl(h.httpUrl("/v1/logs"), Requests.logsBytes(1), "-H", PROTO).status()).isEqualTo(200);
    }

    @Test
    void theSdkExportersTakeBusyAsRetryableAndTheirRecordsArriveOnce() throws Exception {
        h = new Harness("bp-sdk", Map.of("MaxPendingRecords", 1));
        h.out().hold();
        CompletableFuture<Harness.Reply> first = CompletableFuture.supplyAsync(() -> {
            try {
                return Harness.curl(h.httpUrl("/v1/logs"), Requests.logsBytes(1), "-H", PROTO);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }, senders);
        PipelineHarness.await("the first request's record to be published", 20_000, () -> h.stats().in() == 1);
        CompletableFuture<Boolean> grpc = CompletableFuture.supplyAsync(() -> OtlpSdkExportTest.emitLog(
                io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter.builder()
                        .setEndpoint("http://127.0.0.1:" + h.grpcPort).build(), "retried over gRPC"), senders);
        CompletableFuture<Boolean> http = CompletableFuture.supplyAsync(() -> OtlpSdkExportTest.emitLog(
                io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter.builder()
                        .setEndpoint(h.httpUrl("/v1/logs")).build(), "retried over HTTP"), senders);
        PipelineHarness.await("both exporters to be answered busy", 20_000,
                () -> h.stats().rejected(Rejection.BUSY) >= 2);
        h.out().open();
        assertThat(first.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(grpc.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(http.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(h.received()).extracting(Captured::payload)
                .containsExactlyInAnyOrder("line 0", "retried over gRPC", "retried over HTTP");
        h.awaitBudgetEmpty();
    }

    @Test
    void aFailedDeliveryIsAnsweredBusyNeverSuccess() throws Exception {
        h = new Harness("bp-fail", Map.of());
        h.out().fail = true;
        assertBusy();
        assertThat(h.requestsOk()).isZero();
        h.awaitBudgetEmpty();
    }

    @Test
    void aSpentBudgetIsBusyAndARequestItCouldNeverHoldIsTooLarge() throws Exception {
        MemoryBudget budget = new MemoryBudget(256 * 1024);
        h = new Harness("bp-budget", Map.of(), budget);
        assertThat(budget.tryReserve(budget.limit() - 100)).isTrue(); // someone else holds nearly all of it
        assertBusy();
        budget.release(budget.limit() - 100);
        assertThat(Harness.curl(h.httpUrl("/v1/logs"), Requests.logsBytes(2), "-H", PROTO).status()).isEqualTo(200);
        Harness.Reply r = Harness.curl(h.httpUrl("/v1/logs"), new byte[300 * 1024], "-H", PROTO);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.headers()).doesNotContainKey("retry-after");
        assertThat(h.stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        h.awaitBudgetEmpty();
    }

    /**
     * The amplification an attacker would try: one resource with 64 KiB of attributes and 2,000 records of a few bytes
     * each is a 100 KiB request, but every record carries its own copy of the resource (128 MiB in all). What the
     * records really hold is charged as they are decoded, so the request is refused (413: more than the 4 MiB budget
     * can ever hold) instead of filling the heap, nothing reaches the pipeline, and the budget is whole again.
     */
    @Test
    void aLargeResourceCopiedIntoEveryRecordIsChargedForEveryCopy() throws Exception {
        MemoryBudget budget = new MemoryBudget(4 * 1024 * 1024);
        h = new Harness("bp-amplified", Map.of(), budget);
        io.opentelemetry.proto.resource.v1.Resource.Builder resource = io.opentelemetry.proto.resource.v1.Resource.newBuilder();
        for (int i = 0; i < 64; i++) {
            resource.addAttributes(io.opentelemetry.proto.common.v1.KeyValue.newBuilder().setKey("k" + i)
                    .setValue(io.opentelemetry.proto.common.v1.AnyValue.newBuilder().setStringValue("v".repeat(1024))));
        }
        io.opentelemetry.proto.logs.v1.ScopeLogs.Builder scope = io.opentelemetry.proto.logs.v1.ScopeLogs.newBuilder();
        for (int i = 0; i < 2000; i++) {
            scope.addLogRecords(io.opentelemetry.proto.logs.v1.LogRecord.newBuilder().setTimeUnixNano(i + 1));
        }
        byte[] body = io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(io.opentelemetry.proto.logs.v1.ResourceLogs.newBuilder().setResource(resource)
                        .addScopeLogs(scope)).build().toByteArray();
        assertThat(body.length).isLessThan(100 * 1024);

        Harness.Reply r = Harness.curl(h.httpUrl("/v1/logs"), body, "-H", PROTO);
        assertThat(r.status()).isEqualTo(413);
        assertThat(h.stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(h.received()).as("records that reached the pipeline").isEmpty();
        h.awaitBudgetEmpty();

        // The same records with a small resource are taken: the charge is what they hold, not a guess.
        byte[] small = io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(io.opentelemetry.proto.logs.v1.ResourceLogs.newBuilder().addScopeLogs(scope))
                .build().toByteArray();
        assertThat(Harness.curl(h.httpUrl("/v1/logs"), small, "-H", PROTO).status()).isEqualTo(200);
        h.awaitBudgetEmpty();
    }
}
