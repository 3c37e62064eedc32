package io.sluice.e2e;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HEC client offering events {@code {"n":i,"s":"h","p":"…"}} numbered from 0 at a steady rate, {@link #BATCH}
 * per request, with up to {@link #IN_FLIGHT} requests waiting for an answer. Splunk's contract: a 200 means the
 * events are taken; a 503 (code 9, "Server is busy") means nothing of the request was taken, so the client offers
 * the same events again later, as Splunk's own forwarders do. An I/O error is retried the same way (it may
 * duplicate; counted).
 */
final class HecSender implements AutoCloseable {
    static final int BATCH = 250;
    static final int IN_FLIGHT = 24;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final URI uri;
    private final Semaphore slots = new Semaphore(IN_FLIGHT);
    private final ConcurrentLinkedQueue<Integer> again = new ConcurrentLinkedQueue<>();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong busy = new AtomicLong();
    private final AtomicLong otherStatus = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean offering = true;
    private volatile int offered;
    private Thread thread;

    HecSender(int port) {
        uri = URI.create("http://127.0.0.1:" + port + "/services/collector/event");
    }

    /** Offers {@code perSecond} events a second (new ones, and again those refused) until {@link #stopOffering()}. */
    HecSender start(int perSecond) {
        thread = new Thread(() -> {
            long start = System.nanoTime();
            long sent = 0;
            try {
                while (true) {
                    Integer first = again.poll();
                    if (first == null) {
                        if (!offering) {
                            if (slots.availablePermits() == IN_FLIGHT && again.isEmpty()) {
                                return; // everything offered was accepted
                            }
                            Thread.sleep(5);
                            continue;
                        }
                        first = offered;
                        offered = first + BATCH;
                    }
                    long due = start + sent * 1_000_000_000L / perSecond;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait); // pacing the offered rate
                    }
                    sent += BATCH;
                    slots.acquire();
                    post(first);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "hec-sender");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void post(int first) {
        StringBuilder body = new StringBuilder(BATCH * 80);
        for (int i = first; i < first + BATCH; i++) {
            body.append("{\"event\":{\"n\":").append(i).append(",\"s\":\"h\",\"p\":\"").append(FluencySender.PAD).append("\"}}\n");
        }
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(300))
                .header("Authorization", "Splunk e2e")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8)).build();
        http.sendAsync(req, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
            try {
                if (e != null) {
                    errors.incrementAndGet();
                    if (causedBy(e, java.net.ConnectException.class)) {
                        refused.incrementAndGet();
                    }
                    again.add(first);
                } else if (r.statusCode() == 200) {
                    accepted.addAndGet(BATCH);
                } else if (r.statusCode() == 503 && r.body().contains("\"code\":9")) {
                    busy.incrementAndGet();
                    again.add(first);
                } else {
                    otherStatus.incrementAndGet();
                    again.add(first);
                }
            } finally {
                slots.release();
            }
        });
    }

    /** No new events from now on; those refused are still offered again until taken. */
    void stopOffering() {
        offering = false;
    }

    /** Events offered so far: numbers 0 … offered-1. */
    int offered() {
        return offered;
    }

    long accepted() {
        return accepted.get();
    }

    /** 503 answers with code 9 "Server is busy". */
    long busy() {
        return busy.get();
    }

    long errors() {
        return errors.get();
    }

    /** I/O errors that were a refused connection (nothing listening). */
    long refused() {
        return refused.get();
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    long otherStatus() {
        return otherStatus.get();
    }

    /** Waits until every offered event was accepted. */
    void awaitAllAccepted(long seconds) throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(seconds));
        if (thread.isAlive()) {
            throw new AssertionError("HEC sender: " + accepted() + " of " + offered + " events accepted after " + seconds + " s");
        }
    }

    @Override
    public void close() {
        if (thread != null) {
            thread.interrupt();
        }
    }
}
