#!/usr/bin/env bash
# Sluice and Fluent Bit side by side (issue 17): the same pre-encoded events, sent by a sender that is neither of
# them, into each one's input with its default settings, out to a null output; the rate is timed to the last event
# counted at the output.
#
#   scripts/bench-peers.sh [RUNS=3] [WORKLOADS="forward forward-msgpack tcp-lines tcp-json tcp-json-parser hec syslog"]
#   scripts/bench-peers.sh 3 "otlp-http otlp-grpc otlp-hec otlp-hec-gzip"      (OTLP; not in the default list)
#
#   FLUENT_BIT=path   the fluent-bit binary (default $HOME/peers/fluent-bit-build/bin/fluent-bit); built outside
#                     this repository. When it is absent only Sluice runs.
#   EVENTS=N          events per run (default 2000000, a multiple of 1000)
#   SLUICE_JAR=path   another sluice.jar, for A/B runs; JAVA_HOME picks the JDK
#   SLUICE_JAVA_OPTS  JVM options added after the launcher's (not the defaults: say so with the figures), e.g.
#                     -Dsluice.tls.provider=jdk for the JDK's TLS engine instead of BoringSSL
#   DEADLINE=S        seconds a run may take to count all events at the output (default 300)
#   WARMUP=N          first send N other events the same way and wait until all are counted, then time the run:
#                     a server that has been running (a warm JVM for Sluice). Default 0: a fresh process.
#   ENGINES="sluice fluentbit"  the engines to run (default both; one of them alone to check a harness)
#   OTLP_CONNECTIONS=N  otlp-*: HTTP/1.1 connections of the OTLP/HTTP sender, h2load's clients for gRPC (default 1)
#   OTLP_STREAMS=N    otlp-grpc: calls in flight on each HTTP/2 connection (h2load -m; default 1, one at a time).
#                     Fluent Bit's HTTP/2 server allows one stream at a time (SETTINGS_MAX_CONCURRENT_STREAMS 1)
#                     and refuses the others h2load opens before it reads that (REFUSED_STREAM): with more than 1
#                     its runs fail. For more concurrency against both, raise OTLP_CONNECTIONS.
#   OTLP_GRPC_SENDER=h2load|netty  otlp-grpc's sender (default h2load). netty: io.sluice.bench.peer.OtlpGrpcSend, a
#                     Java sender on Netty's HTTP/2 codec that sends every message of otlp.grpc (not one body over
#                     and over), reads each call's grpc-status (all must be 0; 14 and refused streams are sent
#                     again) and opens only as many streams as the server allows; a JVM, so it costs more CPU.
#
# Workloads (Sluice | Fluent Bit), outputs producer.Null | null:
#   forward          consumer.Forward                         | forward
#   forward-msgpack  consumer.Forward, Payload: msgpack       | forward (Fluent Bit keeps records as msgpack anyway)
#   tcp-lines        consumer.Socket (lines, not parsed)      | tcp, format none (each line a {"log": ...} record)
#   tcp-json         consumer.Socket + format.JSON            | tcp (its default: format json, a JSON stream)
#   tcp-json-parser  consumer.Socket + format.JSON            | tcp, parser json (lines, each parsed: the literal twin)
#   hec              consumer.HEC                             | splunk
#   hec-tls          consumer.HEC over TLS (TLS/CertFile)     | splunk, tls on (the sender verifies a self-signed
#                    P-256 certificate made by openssl; not in the default list)
#   syslog           consumer.Syslogd, tcp (RFC 5424 lines;   | syslog, mode tcp (its default parser,
#                    defaults: fields not kept as metadata)   |   syslog-rfc5424, as Fluent Bit's parsers.conf has it)
#   syslog-fields    the same, Sluice SetMetadata: true       | the same
#   otlp-http        consumer.OTLP, OTLP/HTTP (HTTPAddress)   | opentelemetry (HTTP and gRPC on one port)
#   otlp-grpc        consumer.OTLP, OTLP/gRPC (Address)       | opentelemetry
#   otlp-hec         consumer.OTLP (HTTP) → producer.SplunkHEC | opentelemetry → splunk (out_splunk, its default:
#                    with Gzip: false (its default is gzip)   |   no compression), both to a discarding HEC server
#   otlp-hec-gzip    consumer.OTLP (HTTP) → producer.SplunkHEC | opentelemetry → splunk, compress gzip
#                    (its default: Gzip, level 6)             |   (gzip's default level)
# Every config sets only what must be set (type, listen address, stream/match, the JSON step; for HEC out the
# endpoint and a token, which both require): the rest is each plugin's default, except where a row says otherwise.
# Fluent Bit runs with -f 0.2 (flush every 200 ms) and its HTTP server on for the counter. consumer.OTLP listens
# on two ports (gRPC on Address, HTTP on HTTPAddress): the one a workload does not use gets a free port as well.
#
# The data (io.sluice.bench.peer.NeutralData): EVENTS different records of about 180 bytes as JSON, five fields,
# as PackedForward frames of 1,000 (no ack asked), as NDJSON lines, and as HEC bodies of 1,000 events.
# The sender is python3: socket.sendfile of the file for Forward and TCP; for HEC one keep-alive HTTP/1.1
# connection posting each body and reading the answer before the next (bodies read before the clock starts).
# Rate = EVENTS / (time the last event was delivered - time of the first byte sent), one wall clock. The output's
# count is polled every 20 ms until it shows EVENTS (Sluice: /metrics, the producer's messages out; Fluent Bit:
# /api/v1/metrics, null.0 proc_records). Sluice's count is live: the last event's time is that poll's. Fluent
# Bit's is a snapshot taken once a second, so its time is null.0's last flush, from its debug log (to the ms).
# Each run starts a fresh process (a cold JVM for Sluice). For forward, a second Sluice
# line uses Sluice's own load generator (ForwardLoad packed, 1 connection, its own ~250-byte records).
# Engines alternate run by run (Sluice, Fluent Bit, Sluice, ...); the table gives medians of the rates and the
# highest peak RSS (VmHWM, read just before the process is stopped) of the runs.
#
# OTLP (workloads otlp-*; NeutralData's otlp set, io.sluice.bench.peer.OtlpData): EVENTS log records in
# ExportLogsServiceRequest bodies of 1,000 (one resource, one scope; each record ten attributes of mixed types, a
# ~100-byte string body, severity, trace and span ids: ~450 bytes a record as protobuf), encoded with the official
# generated classes. OTLP/HTTP: python3 (neutral_send.py otlp) posts each body to /v1/logs as
# application/x-protobuf on OTLP_CONNECTIONS keep-alive connections, each answer read before the next request;
# every answer must be the engine's success code (Sluice 200; Fluent Bit 201, in_opentelemetry's default
# successful_response_code), else the run fails. OTLP/gRPC: h2load (nghttp2-client: apt-get install
# nghttp2-client) calls LogsService/Export EVENTS/1000 times over h2c with prior knowledge, always with the same
# pre-encoded gRPC message (h2load has one body for all requests: the 1,000 records of a request differ, the
# requests do not); it must report every request succeeded with a 2xx. h2load does not read gRPC trailers, so
# before the clock starts one call by nghttp must show grpc-status: 0 (its 1,000 records are counted with the
# warm-up), and the records counted at the output must match what was sent. The gRPC rate is timed from h2load's
# start (it reads its one body first, a few ms). otlp-hec*: both send to HecDiscardServer (sluice-bench), which
# counts the "event": keys of the bodies (Fluent Bit's out_splunk puts nothing between events, producer.SplunkHEC
# a newline), and the rate is timed to the last event that server counted; a second later its total must still
# be EVENTS. It runs on the same cores (C1 only, as in bench-hec.sh): it costs both engines the same.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
runs=${1:-3}
workloads=${2:-forward forward-msgpack tcp-lines tcp-json tcp-json-parser hec syslog}
events=${EVENTS:-2000000}
warmup=${WARMUP:-0}
deadline=${DEADLINE:-300}
fluent_bit=${FLUENT_BIT:-$HOME/peers/fluent-bit-build/bin/fluent-bit}
jar=${SLUICE_JAR:-sluice-cli/target/sluice.jar}
bench=sluice-bench/target/benchmarks.jar
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
engines=${ENGINES:-sluice fluentbit}
case " $engines " in *" sluice "*) [ -f "$jar" ] || mvn -B -q -o -pl sluice-cli -am package -DskipTests ;; esac
[ -f "$bench" ] || mvn -B -q -o -Pbench -pl sluice-bench -am package -DskipTests

# As the launcher does on Java 24 and newer (see ./sluice).
unsafe_opt=""
if "$java_bin" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then
  unsafe_opt="--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
fi
peer=yes
case " $engines " in *" fluentbit "*) ;; *) peer=no ;; esac
if [ $peer = yes ] && [ ! -x "$fluent_bit" ]; then
  echo "Fluent Bit not found at $fluent_bit (set FLUENT_BIT=): running Sluice only" >&2
  peer=no
fi
sluice=no
case " $engines " in *" sluice "*) sluice=yes ;; esac

otlp_connections=${OTLP_CONNECTIONS:-1}
otlp_streams=${OTLP_STREAMS:-1}
grpc_sender=${OTLP_GRPC_SENDER:-h2load}
case $grpc_sender in h2load|netty) ;; *) echo "OTLP_GRPC_SENDER is h2load or netty" >&2; exit 1 ;; esac
case " $workloads " in
  *" otlp-grpc "*)
    if [ "$grpc_sender" = h2load ]; then
      command -v h2load > /dev/null && command -v nghttp > /dev/null \
        || { echo "otlp-grpc needs h2load and nghttp (apt-get install nghttp2-client), or OTLP_GRPC_SENDER=netty" >&2; exit 1; }
    fi
    if [ "$grpc_sender" = h2load ] && [ "$otlp_streams" -gt 1 ] && [ $peer = yes ]; then
      echo "OTLP_STREAMS=$otlp_streams: Fluent Bit refuses a second stream on a connection, and h2load fails on that;" \
        "use OTLP_GRPC_SENDER=netty, or raise OTLP_CONNECTIONS instead" >&2
      exit 1
    fi ;;
esac

tmp=$(mktemp -d /tmp/bench-peers.XXXXXX)
running=() # processes of the current run (server, sender): only these are killed on exit
cleanup() {
  for p in "${running[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
export SEND_FAILED="$tmp/send.failed"

echo "# $(date -u +%FT%TZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $("$java_bin" -version 2>&1 | head -1)"
if [ $peer = yes ]; then echo "# $("$fluent_bit" --version | head -1)"; fi
# The data sets the workloads need: classic (forward.bin, lines.ndjson, hec.bodies, syslog.txt) and otlp.
sets=""
for w in $workloads; do
  case $w in otlp-*) sets="$sets otlp" ;; *) sets="$sets classic" ;; esac
done
sets=$(echo "$sets" | tr ' ' '\n' | sort -u | paste -sd, -)
case " $workloads " in
  *" hec-tls "*) # a self-signed EC certificate for 127.0.0.1, PEM (PKCS#8 key), as both engines take it
    mkdir -p "$tmp/tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
      -addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/tls/server.key" -out "$tmp/tls/server.crt" 2> /dev/null
    echo "# hec-tls: $(openssl version), a P-256 certificate; the sender verifies it (python3 ssl, TLS 1.3)" ;;
esac
"$java_bin" -cp "$bench" io.sluice.bench.peer.NeutralData "$tmp/data" "$events" "$sets" | sed 's/^/# /'
if [ "$warmup" -gt 0 ]; then
  echo "# warm-up: $warmup events sent and counted before each timed run"
  "$java_bin" -cp "$bench" io.sluice.bench.peer.NeutralData "$tmp/warm" "$warmup" "$sets" > /dev/null
fi
case " $workloads " in
  *" otlp-grpc "*)
    if [ "$grpc_sender" = h2load ]; then
      echo "# gRPC sender: $(h2load --version | head -1), $otlp_connections connection(s), $otlp_streams call(s) in flight each"
    else
      echo "# gRPC sender: OtlpGrpcSend (Netty), $otlp_connections connection(s), $otlp_streams call(s) in flight each"
    fi ;;
esac

# The sender (scripts/lib/neutral_send.py): neither Sluice's code nor Fluent Bit's.

# The counter: polls the output's delivered count every 20 ms until it shows N; prints the time the last event
# was delivered, then the count. Sluice's /metrics is live, so that time is when the poll first saw N. Fluent Bit's
# /api/v1/metrics is a snapshot taken once a second (src/flb_metrics_exporter.c), up to a second late: its time
# is the timestamp (ms) of null.0's last "discarding N bytes" debug line, logged as each flush is thrown away.
cat > "$tmp/count.py" <<'PY'
import json, os, re, sys, time, urllib.request
engine, port, n, deadline = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
def count():
    if engine == "sluice":
        url = f"http://127.0.0.1:{port}/metrics"
        text = urllib.request.urlopen(url, timeout=5).read().decode()
        return sum(int(float(l.rsplit(" ", 1)[1])) for l in text.splitlines()
                   if l.startswith("sluice_messages_out_total{") and 'kind="producer"' in l)
    url = f"http://127.0.0.1:{port}/api/v1/metrics"
    try:
        return json.load(urllib.request.urlopen(url, timeout=5))["output"]["null.0"]["proc_records"]
    except urllib.error.HTTPError as e:
        if e.code == 404:  # no snapshot taken yet (the first comes a second after start)
            return 0
        raise
def last_flush(log):
    last = None
    for line in open(log, errors="replace"):
        if "[output:null:null.0] discarding" in line:
            last = line
    if last is None:
        sys.exit("no null.0 flush in the Fluent Bit log")
    stamp = re.match(r"\[(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d)\.(\d{3})\]", last)
    return time.mktime(time.strptime(stamp.group(1), "%Y/%m/%d %H:%M:%S")) + int(stamp.group(2)) / 1000
end = time.time() + deadline
seen = 0
while time.time() < end:
    if os.path.exists(os.environ.get("SEND_FAILED", "/nonexistent")):
        sys.exit(f"the sender failed ({seen} of {n} events counted)")
    seen = count()
    if seen >= n:
        done = time.time() if engine == "sluice" else last_flush(sys.argv[5])
        print(f"{done:.6f} {seen}")
        sys.exit(0)
    time.sleep(0.02)
sys.exit(f"only {seen} of {n} events counted at the output after {deadline:.0f} s")
PY
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { # port: until something accepts connections there
  for _ in $(seq 1 300); do python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.05; done
  echo "nothing listens on port $1" >&2; return 1
}

sluice_config() { # workload port [other-port sink-port] → YAML
  local w=$1 port=$2 other=${3:-} sink=${4:-}
  case $w in
    forward|forward-msgpack)
      printf '"In":\n    Type: consumer.Forward\n    Address: "127.0.0.1:%s"\n    Streams: bench\n' "$port"
      [ "$w" = forward-msgpack ] && printf '    Payload: msgpack\n' ;;
    tcp-lines)
      printf '"In":\n    Type: consumer.Socket\n    Address: "tcp://127.0.0.1:%s"\n    Streams: bench\n' "$port" ;;
    tcp-json|tcp-json-parser)
      printf '"In":\n    Type: consumer.Socket\n    Address: "tcp://127.0.0.1:%s"\n    Streams: bench\n    Modulators:\n        - format.JSON\n' "$port" ;;
    hec|hec-tls)
      printf '"In":\n    Type: consumer.HEC\n    Address: "127.0.0.1:%s"\n    Streams: bench\n' "$port"
      if [ "$w" = hec-tls ]; then printf '    TLS/CertFile: "%s"\n    TLS/KeyFile: "%s"\n' "$tmp/tls/server.crt" "$tmp/tls/server.key"; fi ;;
    syslog|syslog-fields)
      printf '"In":\n    Type: consumer.Syslogd\n    Address: "tcp://127.0.0.1:%s"\n    Streams: bench\n' "$port"
      if [ "$w" = syslog-fields ]; then printf '    SetMetadata: true\n'; fi ;;
    otlp-grpc)
      printf '"In":\n    Type: consumer.OTLP\n    Address: "127.0.0.1:%s"\n    HTTPAddress: "127.0.0.1:%s"\n    Streams: bench\n' "$port" "$other" ;;
    otlp-*)
      printf '"In":\n    Type: consumer.OTLP\n    Address: "127.0.0.1:%s"\n    HTTPAddress: "127.0.0.1:%s"\n    Streams: bench\n' "$other" "$port" ;;
  esac
  case $w in
    otlp-hec*)
      printf '"Out":\n    Type: producer.SplunkHEC\n    Streams: bench\n    Endpoint: "http://127.0.0.1:%s"\n    Token: bench\n' "$sink"
      if [ "$w" = otlp-hec ]; then printf '    Gzip: false\n'; fi ;;
    *) printf '"Out":\n    Type: producer.Null\n    Streams: bench\n' ;;
  esac
}

fluent_bit_config() { # workload port http-port [sink-port] → classic config
  local w=$1 port=$2 http=$3 sink=${4:-}
  # Grace 1: stop within a second of SIGTERM (the default waits 5 s), nothing to do with the figures.
  # log_level debug: null.0 then logs each flush it discards (a few hundred lines a run), which times the last one.
  # Not for otlp-hec*, timed at the HEC server: there out_splunk would log a debug line for every record ("Could
  # not find hec_token in metadata"), so Fluent Bit keeps its default level, info.
  local level=debug
  case $w in otlp-hec*) level=info ;; esac
  printf '[SERVICE]\n    http_server on\n    http_listen 127.0.0.1\n    http_port %s\n    grace 1\n    log_level %s\n' "$http" "$level"
  case $w in tcp-json-parser|syslog*) printf '    parsers_file %s\n' "$tmp/parsers.conf" ;; esac
  case $w in
    forward|forward-msgpack) printf '[INPUT]\n    name forward\n' ;;
    tcp-lines) printf '[INPUT]\n    name tcp\n    format none\n' ;;
    tcp-json) printf '[INPUT]\n    name tcp\n' ;;
    tcp-json-parser) printf '[INPUT]\n    name tcp\n    format none\n    parser json\n' ;;
    hec) printf '[INPUT]\n    name splunk\n' ;;
    hec-tls) printf '[INPUT]\n    name splunk\n    tls on\n    tls.crt_file %s\n    tls.key_file %s\n' "$tmp/tls/server.crt" "$tmp/tls/server.key" ;;
    syslog*) printf '[INPUT]\n    name syslog\n    mode tcp\n' ;;
    otlp-*) printf '[INPUT]\n    name opentelemetry\n' ;;
  esac
  printf '    listen 127.0.0.1\n    port %s\n' "$port"
  case $w in
    otlp-hec*)
      printf '[OUTPUT]\n    name splunk\n    match *\n    host 127.0.0.1\n    port %s\n    splunk_token bench\n' "$sink"
      if [ "$w" = otlp-hec-gzip ]; then printf '    compress gzip\n'; fi ;;
    *) printf '[OUTPUT]\n    name null\n    match *\n' ;;
  esac
}
# json for tcp-json-parser; syslog-rfc5424, in_syslog's default parser, as Fluent Bit's conf/parsers.conf defines it.
printf '[PARSER]\n    name json\n    format json\n' > "$tmp/parsers.conf"
cat >> "$tmp/parsers.conf" <<'CONF'
[PARSER]
    Name        syslog-rfc5424
    Format      regex
    Regex       ^\<(?<pri>[0-9]{1,5})\>1 (?<time>[^ ]+) (?<host>[^ ]+) (?<ident>[^ ]+) (?<pid>[-0-9]+) (?<msgid>[^ ]+) (?<extradata>(\[(.*?)\]|-)) (?<message>.+)$
    Time_Key    time
    Time_Format %Y-%m-%dT%H:%M:%S.%L%z
    Time_Keep   On
CONF

input_file() { # workload [data dir] → the pre-encoded file and how it is sent
  local d=${2:-$tmp/data}
  case $1 in
    forward*) echo "stream $d/forward.bin" ;;
    tcp-*) echo "stream $d/lines.ndjson" ;;
    syslog*) echo "stream $d/syslog.txt" ;;
    hec|hec-tls) echo "hec $d/hec.bodies" ;;
    otlp-grpc) echo "grpc $d/otlp-one.grpc" ;;
    otlp-*) echo "otlp $d/otlp.bodies" ;;
  esac
}
grpc_path=/opentelemetry.proto.collector.logs.v1.LogsService/Export

# One OTLP/gRPC call by nghttp before the clock starts: h2load does not read trailers, this shows grpc-status.
grpc_probe() { # port data-dir
  local out
  out=$(nghttp -v -d "$2/otlp-one.grpc" -H 'content-type: application/grpc' -H 'te: trailers' \
    "http://127.0.0.1:$1$grpc_path" 2>&1 | grep -a 'recv (stream_id' || true)
  if ! grep -q ':status: 200' <<< "$out" || ! grep -q 'grpc-status: 0$' <<< "$out"; then
    echo "FAILED: the gRPC probe call was not answered :status 200, grpc-status 0:" >&2; echo "$out" >&2; return 1
  fi
}

send() { # engine workload port events data-dir: one sender, in the foreground; prints its first-byte time
  if [ "$1" = sluice-own-load ]; then
    "$java_bin" -cp "$bench" io.sluice.bench.forward.ForwardLoad 127.0.0.1 "$3" packed 1 "$4"
  elif [ "$2" = otlp-grpc ] && [ "$grpc_sender" = netty ]; then
    "$java_bin" -Xmx128m -XX:TieredStopAtLevel=1 -cp "$bench" io.sluice.bench.peer.OtlpGrpcSend "$3" "$5/otlp.grpc" \
      "$otlp_connections" "$otlp_streams"
  elif [ "$2" = otlp-grpc ]; then
    # h2load: n calls of the one pre-encoded message, over h2c (prior knowledge: http:// URL); its report to stderr.
    local n=$(( $4 / 1000 )) t0 report
    t0=$(python3 -c 'import time; print(f"{time.time():.6f}")')
    report=$(h2load -n "$n" -c "$otlp_connections" -m "$otlp_streams" -d "$5/otlp-one.grpc" \
      -H 'content-type: application/grpc' -H 'te: trailers' "http://127.0.0.1:$3$grpc_path" 2>&1) \
      || { echo "$report" >&2; return 1; }
    grep -E '^(requests|status codes):' <<< "$report" >&2
    grep -q "^requests: $n total, $n started, $n done, $n succeeded, 0 failed, 0 errored, 0 timeout" <<< "$report" \
      && grep -q "^status codes: $n 2xx" <<< "$report" || { echo "h2load: not every call succeeded" >&2; return 1; }
    echo "$t0"
  elif [ "$2" = otlp-http ] || [ "$2" = otlp-hec ] || [ "$2" = otlp-hec-gzip ]; then
    # The success code each engine answers with its defaults: Fluent Bit's in_opentelemetry 201, OTLP's 200.
    python3 scripts/lib/neutral_send.py otlp "$3" "$(input_file "$2" "$5" | cut -d' ' -f2)" "$otlp_connections" \
      "$([ "$1" = fluentbit ] && echo 201 || echo 200)"
  else
    # shellcheck disable=SC2046 # input_file gives two words: kind and path
    NEUTRAL_TLS_CA=$([ "$2" = hec-tls ] && echo "$tmp/tls/server.crt" || true) \
      python3 scripts/lib/neutral_send.py $(input_file "$2" "$5" | cut -d' ' -f1) "$3" "$(input_file "$2" "$5" | cut -d' ' -f2)"
  fi
}

stop() { # pid: SIGTERM, then SIGKILL after 15 s
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# The discarding HEC server of the otlp-hec workloads: its output names the time of the last event it counted.
sink_wait() { # sink-output pattern seconds: until the sink's output has a line matching pattern (one python
  # process polling every 20 ms, not a grep per poll, while the run is timed)
  python3 - "$1" "$2" "$3" <<'PY'
import os, re, sys, time
path, pattern, end = sys.argv[1], re.compile(sys.argv[2]), time.time() + float(sys.argv[3])
while time.time() < end:
    if os.path.exists(os.environ.get("SEND_FAILED", "/nonexistent")):
        sys.exit("the sender failed")
    with open(path, errors="replace") as f:
        if any(pattern.search(line) for line in f):
            sys.exit(0)
    time.sleep(0.02)
sys.exit(1)
PY
}

one_run() { # engine workload run → appends "workload engine rate rss_kb" to results
  local engine=$1 w=$2 r=$3 port admin pid log="$tmp/$1-$2-$3.log" other="" sink="" sink_pid="" sink_out="$tmp/sink.out"
  running=()
  port=$(free_port); admin=$(free_port)
  case $w in otlp-*) other=$(free_port) ;; esac
  # Events counted before the timed run: the warm-up, and for gRPC the probe call's 1,000.
  local base=$warmup
  if [ "$w" = otlp-grpc ] && [ "$grpc_sender" = h2load ]; then base=$(( base + 1000 )); fi
  case $w in
    otlp-hec*)
      sink=$(free_port)
      # As bench-hec.sh runs it; it warms its own JIT before it prints "listening".
      "$java_bin" -Xmx256m -XX:TieredStopAtLevel=1 -cp "$bench" io.sluice.bench.hec.HecDiscardServer "$sink" \
        $(( base + events )) "$base" events > "$sink_out" 2>&1 &
      sink_pid=$!; running=("$sink_pid")
      sink_wait "$sink_out" listening 60 || { echo "FAILED: the HEC sink did not start" >&2; cat "$sink_out" >&2; exit 1; } ;;
  esac
  if [ "$engine" = fluentbit ]; then
    fluent_bit_config "$w" "$port" "$admin" "$sink" > "$tmp/fb.conf"
    "$fluent_bit" -c "$tmp/fb.conf" -f 0.2 > "$log" 2>&1 &
  else
    sluice_config "$w" "$port" "$other" "$sink" > "$tmp/sluice.yaml"
    # Exactly the ./sluice launcher's JVM options; the stats line goes to the log.
    "$java_bin" -Xms64m -Xmx192m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError ${unsafe_opt:-} ${SLUICE_JAVA_OPTS:-} -jar "$jar" \
      -c "$tmp/sluice.yaml" --admin "127.0.0.1:$admin" > "$log" 2>&1 &
  fi
  pid=$!; running+=("$pid")
  wait_port "$admin" || { cat "$log" >&2; exit 1; }
  wait_port "$port" || { cat "$log" >&2; exit 1; }

  local sent_at counted_at final
  if [ "$w" = otlp-grpc ] && [ "$grpc_sender" = h2load ]; then
    grpc_probe "$port" "$tmp/data" || { tail -20 "$log" >&2; exit 1; }
  fi
  if [ "$warmup" -gt 0 ]; then
    send "$engine" "$w" "$port" "$warmup" "$tmp/warm" > /dev/null
  fi
  if [ "$base" -gt 0 ]; then
    if [ -n "$sink" ]; then
      sink_wait "$sink_out" '^warm:' "$deadline"
    else
      python3 "$tmp/count.py" "${engine%%-*}" "$admin" "$base" "$deadline" "$log" > /dev/null
    fi || { echo "FAILED: warm-up of $engine $w run $r" >&2; tail -20 "$log" >&2; exit 1; }
  fi
  # A failed sender leaves $SEND_FAILED, so that the counter stops waiting for events that will not come.
  rm -f "$tmp/send.failed"
  { send "$engine" "$w" "$port" "$events" "$tmp/data" > "$tmp/send.out" || { touch "$tmp/send.failed"; exit 1; }; } &
  local sender=$!; running+=("$sender")
  local counted
  if [ -n "$sink" ]; then
    sink_wait "$sink_out" 'last event at epoch' "$deadline" \
      || { echo "FAILED: $engine $w run $r: the HEC sink did not count $events events" >&2; tail -20 "$log" >&2; cat "$sink_out" >&2; exit 1; }
    counted="$(grep -o 'last event at epoch [0-9.]*' "$sink_out" | awk '{print $NF}') $events"
  else
    counted=$(python3 "$tmp/count.py" "${engine%%-*}" "$admin" $(( base + events )) "$deadline" "$log") \
      || { echo "FAILED: $engine $w run $r" >&2; tail -20 "$log" >&2; exit 1; }
  fi
  wait "$sender" || { echo "FAILED: the sender ($engine $w run $r)" >&2; exit 1; }
  counted_at=${counted%% *}
  if [ "$engine" = sluice-own-load ]; then
    sent_at=$(grep -o 'first byte sent at epoch [0-9.]*' "$tmp/send.out" | awk '{print $NF}')
  else
    sent_at=$(tail -1 "$tmp/send.out")
  fi
  # Settle, then read the count again: more than EVENTS would mean duplicates.
  if [ -n "$sink" ]; then
    sink_wait "$sink_out" '^total:' 10 || { echo "FAILED: the HEC sink gave no total" >&2; exit 1; }
    final=$(( base + $(awk '/^total:/ { print $2 }' "$sink_out") ))
    # What reached the HEC server, bytes on the wire included: the engines map a record to HEC differently.
    grep -o '[0-9,]* events ([0-9,]* bytes on the wire)' "$sink_out" | sed 's/^/HEC server: /' >&2 || true
  else
    sleep 0.5
    [ "$engine" = fluentbit ] && sleep 1 # its counter is a snapshot taken once a second
    final=$(python3 "$tmp/count.py" "${engine%%-*}" "$admin" $(( base + events )) 5 "$log" | cut -d' ' -f2)
  fi
  [ "$final" -eq $(( base + events )) ] || { echo "FAILED: $engine $w run $r counted $(( final - base )) events, sent $events" >&2; exit 1; }
  local rss; rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
  stop "$pid"
  if [ -n "$sink_pid" ]; then stop "$sink_pid"; fi
  running=()
  local rate; rate=$(awk -v n="$events" -v a="$sent_at" -v b="$counted_at" 'BEGIN { printf "%.0f", n / (b - a) }')
  printf '%-16s %-16s run %d: %9s events/s in %6.2f s, peak RSS %4d MB\n' "$w" "$engine" "$r" "$rate" \
    "$(awk -v a="$sent_at" -v b="$counted_at" 'BEGIN { print b - a }')" $(( rss / 1024 ))
  echo "$w $engine $rate $rss" >> "$tmp/results"
}

for w in $workloads; do
  for r in $(seq 1 "$runs"); do
    if [ $sluice = yes ]; then one_run sluice "$w" "$r"; fi
    if [ $peer = yes ]; then one_run fluentbit "$w" "$r"; fi
    if [ $sluice = yes ] && [ "$w" = forward ]; then one_run sluice-own-load forward "$r"; fi
  done
done

echo
python3 - "$tmp/results" "$events" "$([ "$warmup" -gt 0 ] && echo ", after a warm-up of $warmup")" <<'PY'
import os, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    w, engine, rate, rss = line.split()
    rows.setdefault(w, {}).setdefault(engine, []).append((int(rate), int(rss)))
def med(runs): return statistics.median(r for r, _ in runs)
def rss(runs): return f"{max(m for _, m in runs) / 1024:.0f} MB" if runs else "-"
label = {"forward": "forward", "forward-msgpack": "forward (Sluice: Payload msgpack)",
         "tcp-lines": "tcp-lines (FB: format none)", "tcp-json": "tcp-json (Sluice: + format.JSON; FB: format json)",
         "tcp-json-parser": "tcp-json-parser (Sluice: + format.JSON; FB: format none + parser json)", "hec": "hec", "hec-tls": "hec-tls (HTTPS, TLS 1.3, P-256)",
         "syslog": "syslog over TCP, RFC 5424 lines (Sluice: syslog fields not kept, its default; FB: parsed into fields)",
         "syslog-fields": "syslog over TCP, Sluice SetMetadata: true (fields kept, as FB's parser does)",
         "otlp-http": "otlp-http (OTLP/HTTP protobuf, 1,000 records a request)",
         "otlp-grpc": f"otlp-grpc (OTLP/gRPC, 1,000 records a call, {os.environ.get('OTLP_GRPC_SENDER', 'h2load')})",
         "otlp-hec": "otlp-hec (OTLP/HTTP in, HEC out, not compressed: Sluice Gzip: false)",
         "otlp-hec-gzip": "otlp-hec-gzip (OTLP/HTTP in, HEC out gzip: FB compress gzip)"}
print(f"{int(sys.argv[2]):,} events per run{sys.argv[3]}; medians of {max(len(e) for w in rows.values() for e in w.values())} runs; peak RSS: highest of the runs")
print()
print("| workload | Sluice events/s | Fluent Bit events/s | Sluice / Fluent Bit | Sluice peak RSS | Fluent Bit peak RSS |")
print("|---|---:|---:|---:|---:|---:|")
for w, e in rows.items():
    s, f = e.get("sluice"), e.get("fluentbit")
    print(f"| {label.get(w, w)} | {f'{med(s):,.0f}' if s else '-'} | {f'{med(f):,.0f}' if f else '-'} | "
          f"{f'{med(s) / med(f):.2f}' if s and f else '-'} | {rss(s)} | {rss(f)} |")
    if "sluice-own-load" in e:
        o = e["sluice-own-load"]
        print(f"| forward, Sluice's own sender (ForwardLoad packed, 1 connection, ~250 B records) | {med(o):,.0f} | | | {rss(o)} | |")
PY
