#!/usr/bin/env python3
"""The neutral sender of the side-by-side benchmarks: neither Sluice's code nor a peer's.

    neutral_send.py stream PORT FILE   the file's bytes to a TCP socket (sendfile), then a half close
    neutral_send.py hec PORT FILE      one keep-alive HTTP/1.1 connection posting each line of FILE (a pre-encoded
                                       HEC body) to /services/collector/event, reading each answer before the next

Prints the epoch time of the first byte sent, for a rate timed from it to the last event counted at the output.
"""
import http.client, socket, sys, time
kind, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if kind == "stream":
    with open(path, "rb") as f, socket.create_connection(("127.0.0.1", port)) as s:
        t0 = time.time()
        s.sendfile(f)
        s.shutdown(socket.SHUT_WR)
else:  # hec: bodies one per line, read before the clock starts
    with open(path, "rb") as f:
        bodies = [line.rstrip(b"\n") for line in f]
    conn = http.client.HTTPConnection("127.0.0.1", port)
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
