#!/usr/bin/env bash
# Sluice and Fluent Bit side by side (issue 17): the same pre-encoded events, sent by a sender that is neither of
# them, into each one's input with its default settings, out to a null output; the rate is timed to the last event
# counted at the output.
#
#   scripts/bench-peers.sh [RUNS=3] [WORKLOADS="forward forward-msgpack tcp-lines tcp-json tcp-json-parser hec syslog"]
#
#   FLUENT_BIT=path   the fluent-bit binary (default $HOME/peers/fluent-bit-build/bin/fluent-bit); built outside
#                     this repository. When it is absent only Sluice runs.
#   EVENTS=N          events per run (default 2000000, a multiple of 1000)
#   SLUICE_JAR=path   another sluice.jar, for A/B runs; JAVA_HOME picks the JDK
#   DEADLINE=S        seconds a run may take to count all events at the output (default 300)
#   WARMUP=N          first send N other events the same way and wait until all are counted, then time the run:
#                     a server that has been running (a warm JVM for Sluice). Default 0: a fresh process.
#
# Workloads (Sluice | Fluent Bit), outputs producer.Null | null:
#   forward          consumer.Forward                         | forward
#   forward-msgpack  consumer.Forward, Payload: msgpack       | forward (Fluent Bit keeps records as msgpack anyway)
#   tcp-lines        consumer.Socket (lines, not parsed)      | tcp, format none (each line a {"log": ...} record)
#   tcp-json         consumer.Socket + format.JSON            | tcp (its default: format json, a JSON stream)
#   tcp-json-parser  consumer.Socket + format.JSON            | tcp, parser json (lines, each parsed: the literal twin)
#   hec              consumer.HEC                             | splunk
#   syslog           consumer.Syslogd, tcp (RFC 5424 lines;   | syslog, mode tcp (its default parser,
#                    defaults: fields not kept as metadata)   |   syslog-rfc5424, as Fluent Bit's parsers.conf has it)
#   syslog-fields    the same, Sluice SetMetadata: true       | the same
# Every config sets only what must be set (type, listen address, stream/match, the JSON step): the rest is each
# plugin's default. Fluent Bit runs with -f 0.2 (flush every 200 ms) and its HTTP server on for the counter.
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
[ -f "$jar" ] || mvn -B -q -o -pl sluice-cli -am package -DskipTests
[ -f "$bench" ] || mvn -B -q -o -Pbench -pl sluice-bench -am package -DskipTests

# As the launcher does on Java 24 and newer (see ./sluice).
unsafe_opt=""
if "$java_bin" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then
  unsafe_opt=--sun-misc-unsafe-memory-access=allow
fi
peer=yes
if [ ! -x "$fluent_bit" ]; then
  echo "Fluent Bit not found at $fluent_bit (set FLUENT_BIT=): running Sluice only" >&2
  peer=no
fi

tmp=$(mktemp -d /tmp/bench-peers.XXXXXX)
running=() # processes of the current run (server, sender): only these are killed on exit
cleanup() {
  for p in "${running[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "# $(date -u +%FT%TZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $("$java_bin" -version 2>&1 | head -1)"
if [ $peer = yes ]; then echo "# $("$fluent_bit" --version | head -1)"; fi
"$java_bin" -cp "$bench" io.sluice.bench.peer.NeutralData "$tmp/data" "$events" | sed 's/^/# /'
if [ "$warmup" -gt 0 ]; then
  echo "# warm-up: $warmup events sent and counted before each timed run"
  "$java_bin" -cp "$bench" io.sluice.bench.peer.NeutralData "$tmp/warm" "$warmup" > /dev/null
fi

# The sender (scripts/lib/neutral_send.py): neither Sluice's code nor Fluent Bit's.

# The counter: polls the output's delivered count every 20 ms until it shows N; prints the time the last event
# was delivered, then the count. Sluice's /metrics is live, so that time is when the poll first saw N. Fluent Bit's
# /api/v1/metrics is a snapshot taken once a second (src/flb_metrics_exporter.c), up to a second late: its time
# is the timestamp (ms) of null.0's last "discarding N bytes" debug line, logged as each flush is thrown away.
cat > "$tmp/count.py" <<'PY'
import json, re, sys, time, urllib.request
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

sluice_config() { # workload port → YAML
  local w=$1 port=$2
  case $w in
    forward|forward-msgpack)
      printf '"In":\n    Type: consumer.Forward\n    Address: "127.0.0.1:%s"\n    Streams: bench\n' "$port"
      [ "$w" = forward-msgpack ] && printf '    Payload: msgpack\n' ;;
    tcp-lines)
      printf '"In":\n    Type: consumer.Socket\n    Address: "tcp://127.0.0.1:%s"\n    Streams: bench\n' "$port" ;;
    tcp-json|tcp-json-parser)
      printf '"In":\n    Type: consumer.Socket\n    Address: "tcp://127.0.0.1:%s"\n    Streams: bench\n    Modulators:\n        - format.JSON\n' "$port" ;;
    hec)
      printf '"In":\n    Type: consumer.HEC\n    Address: "127.0.0.1:%s"\n    Streams: bench\n' "$port" ;;
    syslog|syslog-fields)
      printf '"In":\n    Type: consumer.Syslogd\n    Address: "tcp://127.0.0.1:%s"\n    Streams: bench\n' "$port"
      if [ "$w" = syslog-fields ]; then printf '    SetMetadata: true\n'; fi ;;
  esac
  printf '"Out":\n    Type: producer.Null\n    Streams: bench\n'
}

fluent_bit_config() { # workload port http-port → classic config
  local w=$1 port=$2 http=$3
  # Grace 1: stop within a second of SIGTERM (the default waits 5 s), nothing to do with the figures.
  # log_level debug: null.0 then logs each flush it discards (a few hundred lines a run), which times the last one.
  printf '[SERVICE]\n    http_server on\n    http_listen 127.0.0.1\n    http_port %s\n    grace 1\n    log_level debug\n' "$http"
  case $w in tcp-json-parser|syslog*) printf '    parsers_file %s\n' "$tmp/parsers.conf" ;; esac
  case $w in
    forward|forward-msgpack) printf '[INPUT]\n    name forward\n' ;;
    tcp-lines) printf '[INPUT]\n    name tcp\n    format none\n' ;;
    tcp-json) printf '[INPUT]\n    name tcp\n' ;;
    tcp-json-parser) printf '[INPUT]\n    name tcp\n    format none\n    parser json\n' ;;
    hec) printf '[INPUT]\n    name splunk\n' ;;
    syslog*) printf '[INPUT]\n    name syslog\n    mode tcp\n' ;;
  esac
  printf '    listen 127.0.0.1\n    port %s\n[OUTPUT]\n    name null\n    match *\n' "$port"
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
    hec) echo "hec $d/hec.bodies" ;;
  esac
}

send() { # engine workload port events data-dir: one sender, in the foreground; prints its first-byte time
  if [ "$1" = sluice-own-load ]; then
    "$java_bin" -cp "$bench" io.sluice.bench.forward.ForwardLoad 127.0.0.1 "$3" packed 1 "$4"
  else
    # shellcheck disable=SC2046 # input_file gives two words: kind and path
    python3 scripts/lib/neutral_send.py $(input_file "$2" "$5" | cut -d' ' -f1) "$3" "$(input_file "$2" "$5" | cut -d' ' -f2)"
  fi
}

stop() { # pid: SIGTERM, then SIGKILL after 15 s
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

one_run() { # engine workload run → appends "workload engine rate rss_kb" to results
  local engine=$1 w=$2 r=$3 port admin pid log="$tmp/$1-$2-$3.log"
  port=$(free_port); admin=$(free_port)
  if [ "$engine" = fluentbit ]; then
    fluent_bit_config "$w" "$port" "$admin" > "$tmp/fb.conf"
    "$fluent_bit" -c "$tmp/fb.conf" -f 0.2 > "$log" 2>&1 &
  else
    sluice_config "$w" "$port" > "$tmp/sluice.yaml"
    # Exactly the ./sluice launcher's JVM options; the stats line goes to the log.
    "$java_bin" -Xms64m -Xmx192m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError ${unsafe_opt:-} -jar "$jar" \
      -c "$tmp/sluice.yaml" --admin "127.0.0.1:$admin" > "$log" 2>&1 &
  fi
  pid=$!; running=("$pid")
  wait_port "$admin" || { cat "$log" >&2; exit 1; }
  wait_port "$port" || { cat "$log" >&2; exit 1; }

  local sent_at counted_at final base=0
  if [ "$warmup" -gt 0 ]; then
    send "$engine" "$w" "$port" "$warmup" "$tmp/warm" > /dev/null
    python3 "$tmp/count.py" "${engine%%-*}" "$admin" "$warmup" "$deadline" "$log" > /dev/null \
      || { echo "FAILED: warm-up of $engine $w run $r" >&2; tail -20 "$log" >&2; exit 1; }
    base=$warmup
  fi
  send "$engine" "$w" "$port" "$events" "$tmp/data" > "$tmp/send.out" &
  local sender=$!; running+=("$sender")
  local counted; counted=$(python3 "$tmp/count.py" "${engine%%-*}" "$admin" $(( base + events )) "$deadline" "$log") \
    || { echo "FAILED: $engine $w run $r" >&2; tail -20 "$log" >&2; exit 1; }
  wait "$sender" || { echo "FAILED: the sender ($engine $w run $r)" >&2; exit 1; }
  counted_at=${counted%% *}
  if [ "$engine" = sluice-own-load ]; then
    sent_at=$(grep -o 'first byte sent at epoch [0-9.]*' "$tmp/send.out" | awk '{print $NF}')
  else
    sent_at=$(tail -1 "$tmp/send.out")
  fi
  # Settle, then read the count again: more than EVENTS would mean duplicates.
  sleep 0.5
  [ "$engine" = fluentbit ] && sleep 1 # its counter is a snapshot taken once a second
  final=$(python3 "$tmp/count.py" "${engine%%-*}" "$admin" $(( base + events )) 5 "$log" | cut -d' ' -f2)
  [ "$final" -eq $(( base + events )) ] || { echo "FAILED: $engine $w run $r counted $final events, sent $events" >&2; exit 1; }
  local rss; rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
  stop "$pid"; running=()
  local rate; rate=$(awk -v n="$events" -v a="$sent_at" -v b="$counted_at" 'BEGIN { printf "%.0f", n / (b - a) }')
  printf '%-16s %-16s run %d: %9s events/s in %6.2f s, peak RSS %4d MB\n' "$w" "$engine" "$r" "$rate" \
    "$(awk -v a="$sent_at" -v b="$counted_at" 'BEGIN { print b - a }')" $(( rss / 1024 ))
  echo "$w $engine $rate $rss" >> "$tmp/results"
}

for w in $workloads; do
  for r in $(seq 1 "$runs"); do
    one_run sluice "$w" "$r"
    if [ $peer = yes ]; then one_run fluentbit "$w" "$r"; fi
    if [ "$w" = forward ]; then one_run sluice-own-load forward "$r"; fi
  done
done

echo
python3 - "$tmp/results" "$events" "$([ "$warmup" -gt 0 ] && echo ", after a warm-up of $warmup")" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    w, engine, rate, rss = line.split()
    rows.setdefault(w, {}).setdefault(engine, []).append((int(rate), int(rss)))
def med(runs): return statistics.median(r for r, _ in runs)
def rss(runs): return f"{max(m for _, m in runs) / 1024:.0f} MB"
label = {"forward": "forward", "forward-msgpack": "forward (Sluice: Payload msgpack)",
         "tcp-lines": "tcp-lines (FB: format none)", "tcp-json": "tcp-json (Sluice: + format.JSON; FB: format json)",
         "tcp-json-parser": "tcp-json-parser (Sluice: + format.JSON; FB: format none + parser json)", "hec": "hec",
         "syslog": "syslog over TCP, RFC 5424 lines (Sluice: syslog fields not kept, its default; FB: parsed into fields)",
         "syslog-fields": "syslog over TCP, Sluice SetMetadata: true (fields kept, as FB's parser does)"}
print(f"{int(sys.argv[2]):,} events per run{sys.argv[3]}; medians of {max(len(e) for w in rows.values() for e in w.values())} runs; peak RSS: highest of the runs")
print()
print("| workload | Sluice events/s | Fluent Bit events/s | Sluice / Fluent Bit | Sluice peak RSS | Fluent Bit peak RSS |")
print("|---|---:|---:|---:|---:|---:|")
for w, e in rows.items():
    s, f = e.get("sluice"), e.get("fluentbit")
    print(f"| {label.get(w, w)} | {med(s):,.0f} | {f'{med(f):,.0f}' if f else '-'} | "
          f"{f'{med(s) / med(f):.2f}' if f else '-'} | {rss(s)} | {rss(f) if f else '-'} |")
    if "sluice-own-load" in e:
        o = e["sluice-own-load"]
        print(f"| forward, Sluice's own sender (ForwardLoad packed, 1 connection, ~250 B records) | {med(o):,.0f} | | | {rss(o)} | |")
PY
