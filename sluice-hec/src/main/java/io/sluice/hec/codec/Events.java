package io.sluice.hec.codec;

import java.util.Arrays;

/**
 * The events one encode wrote and the messages they carry, and why messages failed: the table the writing side
 * ({@link HecEncoder}) fills and the cutting side ({@link RequestPlanner}) reads. An event is where it ends in the
 * encoder's buffer and its first member node; members are nodes (a message, the next node), because a message
 * belongs to one event mostly but an OTLP histogram's to several (each bucket its own), so a message cannot be its
 * own link. Plain arrays, reused: nothing is allocated per event once grown.
 */
final class Events {
    /** Number of events. */
    int count;
    /** Per event: its end offset in the encoder's buffer (it starts where the previous one ends). */
    int[] end = new int[1024];
    /** Per event: its first member node. */
    int[] first = new int[1024];
    private int nodes;
    /** Per node: the message (numbered across the batches added). */
    int[] nodeMsg = new int[1024];
    /** Per node: the next node of its event, -1 for none. */
    int[] nodeNext = new int[1024];

    // Per message: why it failed, or null.
    private String[] failure = new String[512];
    private int[] failStatus = new int[512];
    private int[] failCode = new int[512];
    private int failed;

    /** Forgets everything, with room for {@code messages} messages' failures. */
    void reset(int messages) {
        count = 0;
        failed = 0;
        nodes = 0;
        if (failure.length < messages) {
            failure = new String[Math.max(messages, failure.length * 2)];
            failStatus = new int[failure.length];
            failCode = new int[failure.length];
        } else {
            Arrays.fill(failure, 0, messages, null);
        }
    }

    /** Where event {@code e} starts. */
    int start(int e) {
        return e == 0 ? 0 : end[e - 1];
    }

    /** Records an event ending at {@code endOffset} whose first message is {@code firstMsg}; returns its node. */
    int add(int firstMsg, int endOffset) {
        if (count == end.length) {
            int cap = count * 2;
            end = Arrays.copyOf(end, cap);
            first = Arrays.copyOf(first, cap);
        }
        int node = newNode(firstMsg);
        end[count] = endOffset;
        first[count] = node;
        count++;
        return node;
    }

    /** A member node for message {@code mi}, last of its chain. */
    int newNode(int mi) {
        if (nodes == nodeMsg.length) {
            nodeMsg = Arrays.copyOf(nodeMsg, nodes * 2);
            nodeNext = Arrays.copyOf(nodeNext, nodes * 2);
        }
        nodeMsg[nodes] = mi;
        nodeNext[nodes] = -1;
        return nodes++;
    }

    /** Marks message {@code mi} failed with an HTTP status and HEC code, unless it failed already. */
    void fail(int mi, int status, int code, String reason) {
        if (failure[mi] == null) {
            failure[mi] = reason;
            failStatus[mi] = status;
            failCode[mi] = code;
            failed++;
        }
    }

    /**
     * Whether the event written into {@code raw} from {@code start} on has at most {@code max} bytes
     * ({@code MaxEventSize}); if not, drops it and fails message {@code mi}.
     */
    boolean fits(ByteOut raw, int mi, int start, int max) {
        int len = raw.length() - start;
        if (len <= max) {
            return true;
        }
        raw.setLength(start);
        failTooLarge(mi, len, max);
        return false;
    }

    /** Fails message {@code mi} for an event of {@code len} bytes, over {@code MaxEventSize} ({@code max}). */
    void failTooLarge(int mi, int len, int max) {
        fail(mi, 0, -1, "event of " + len + " bytes exceeds MaxEventSize (" + max + ")");
    }

    /** Marks every message of event {@code e} failed. */
    void failEvent(int e, int status, int code, String reason) {
        for (int n = first[e]; n >= 0; n = nodeNext[n]) {
            fail(nodeMsg[n], status, code, reason);
        }
    }

    int failed() {
        return failed;
    }

    String failure(int i) {
        return failure[i];
    }

    int failureStatus(int i) {
        return failStatus[i];
    }

    int failureCode(int i) {
        return failCode[i];
    }
}
