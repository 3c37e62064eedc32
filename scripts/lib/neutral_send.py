#!/usr/bin/env python3
"""The neutral sender of the side-by-side benchmarks: neither Sluice's code nor a peer's.

    neutral_send.py stream PORT FILE   the file's bytes to a TCP socket (sendfile), then a half close
    neutral_send.py hec PORT FILE      one keep-alive HTTP/1.1 connection posting each line of FILE (a pre-encoded
                                       HEC body) to /services/collector/event, reading each answer before the next;
                                       over TLS (HTTPS, verifying the server against that PEM) when NEUTRAL_TLS_CA
                                       names a file
    neutral_send.py otlp PORT FILE [CONNECTIONS=1] [OK=200]
                                       OTLP/HTTP: keep-alive HTTP/1.1 connections posting each body of FILE (4-byte
                                       big-endian length, then an ExportLogsServiceRequest; NeutralData's otlp.bodies)
                                       to /v1/logs as application/x-protobuf, each reading its answer before its next
                                       request; connection i posts bodies i, i+N, i+2N, ... The file is mapped, not
                                       read: each body is sent from the page cache as it is. Every answer must be
                                       OK (OTLP's success is 200; Fluent Bit's in_opentelemetry answers 201 by
                                       default: pass 201); 503 and 429 (busy) are sent again, anything else fails. Prints the records sent (1,000
                                       per body) and the answers' status codes to stderr.

Prints the epoch time of the first byte sent, for a rate timed from it to the last event counted at the output.
"""
import collections, http.client, mmap, os, socket, ssl, struct, sys, threading, time
kind, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if kind == "otlp":
    connections = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    ok = int(sys.argv[5]) if len(sys.argv) > 5 else 200
    with open(path, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(data)
    spans, at = [], 0  # (start, end) of each body
    while at < len(data):
        (n,) = struct.unpack_from(">I", data, at)
        if at + 4 + n > len(data):
            sys.exit(f"{path}: the body at byte {at} runs past the end of the file")
        spans.append((at + 4, at + 4 + n))
        at += 4 + n
    codes = [collections.Counter() for _ in range(connections)]
    failures = []
    def post_all(share, conn, codes):
        try:
            for a, b in share:
                while True:
                    conn.putrequest("POST", "/v1/logs", skip_accept_encoding=True)
                    conn.putheader("Content-Type", "application/x-protobuf")
                    conn.putheader("Content-Length", str(b - a))
                    conn.endheaders()
                    conn.send(view[a:b])
                    r = conn.getresponse()
                    answer = r.read()
                    codes[r.status] += 1
                    if r.status == ok:
                        break
                    if r.status not in (429, 503):
                        raise RuntimeError(f"OTLP/HTTP answered {r.status}: {answer[:200]!r}")
            conn.close()
        except Exception as e:  # reported by the main thread
            failures.append(e)
    conns = []
    for _ in range(connections):
        c = http.client.HTTPConnection("127.0.0.1", port)
        c.connect()
        conns.append(c)
    threads = [threading.Thread(target=post_all, args=(spans[i::connections], conns[i], codes[i])) for i in range(connections)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        sys.exit(f"OTLP/HTTP sender failed: {failures[0]}")
    print(f"OTLP/HTTP: {len(spans) * 1000} records sent in {len(spans)} requests over {connections} connection(s);"
          f" answers: {dict(sorted(sum(codes, collections.Counter()).items()))}", file=sys.stderr)
elif kind == "stream":
    with open(path, "rb") as f, socket.create_connection(("127.0.0.1", port)) as s:
        t0 = time.time()
        s.sendfile(f)
        s.shutdown(socket.SHUT_WR)
else:  # hec: bodies one per line, read before the clock starts
    with open(path, "rb") as f:
        bodies = [line.rstrip(b"\n") for line in f]
    ca = os.environ.get("NEUTRAL_TLS_CA")
    conn = (http.client.HTTPSConnection("127.0.0.1", port, context=ssl.create_default_context(cafile=ca)) if ca
            else http.client.HTTPConnection("127.0.0.1", port))
    conn.connect()
    busy = 0
    t0 = time.time()
    for body in bodies:
        while True:
            conn.request("POST", "/services/collector/event", body, {"Content-Type": "application/json"})
            r = conn.getresponse()
            answer = r.read()
            if r.status == 200:
                break
            if r.status != 503:  # 503 is HEC's "busy, send again"; anything else is a failure
                sys.exit(f"HEC answered {r.status}: {answer[:200]!r}")
            busy += 1
    conn.close()
    if busy:
        print(f"busy answers (503, sent again): {busy}", file=sys.stderr)
print(f"{t0:.6f}")
