#!/usr/bin/env bash
# Whole-process HEC figures, on loopback, timed to the last event delivered:
#  1. consumer.HEC → producer.Benchmark: 4 senders POST 1,000 events (~250 B) per request and wait for the
#     answer, which consumer.HEC gives only after delivery (HecLoad prints events/s), plain then gzip.
#  2. NDJSON over TCP (consumer.Socket) → producer.SplunkHEC → an HTTP server that reads and discards
#     plain then gzip level 6. Timed from the first byte sent to the last event the server counted (and, as
#     HecDiscardServer prints it, from its first request). The server warms its own JIT before the run.
#     Also the CPU time the Sluice process used during the timed run (less sensitive to a busy host than a rate).
#     WARMUP=N sends N lines first and waits until they are counted: the timed run then meets a warm Sluice.
#     Without consumer.Socket on the class path, consumer.Profiler with 250-byte messages is the source.
# PARTS="1 2" picks the parts; GZIP_CASES="false true" the cases of part 2.
# Usage: scripts/bench-hec.sh [events=2000000]   (JAVA_HOME picks the JDK; SLUICE_JAVA_OPTS adds options; SINK_JAVA_OPTS
# replaces the sink's, -XX:TieredStopAtLevel=1)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
events="${1:-2000000}"
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
jvm=(-Xms64m -Xmx192m -XX:+UseParallelGC ${SLUICE_JAVA_OPTS:-})
cli=${SLUICE_JAR:-sluice-cli/target/sluice.jar} # SLUICE_JAR: another build, for A/B runs
bench=${BENCH_JAR:-sluice-bench/target/benchmarks.jar} # BENCH_JAR: another build of the load tools and sink
[ -f "$cli" ] || mvn -B -q -o -pl sluice-cli -am package -DskipTests
[ -f "$bench" ] || mvn -B -q -o -Pbench -pl sluice-bench -am package -DskipTests
tmp="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # user + system time of a process, in clock ticks
wait_port() { for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 never opened" >&2; return 1; }
"$java_bin" -version 2>&1 | head -1

if [[ " ${PARTS:-1 2} " == *" 1 "* ]]; then
echo "== 1. consumer.HEC -> producer.Benchmark ($events events, 4 senders, 1000 events/request)"
cat > "$tmp/receiver.yaml" <<YAML
"HecIn":
    Type: "consumer.HEC"
    Address: "127.0.0.1:18088"
    Tokens: ["bench"]
    Streams: "hec"
"Count":
    Type: "producer.Benchmark"
    Streams: "hec"
YAML
"$java_bin" "${jvm[@]}" -jar "$cli" -c "$tmp/receiver.yaml" > /dev/null 2> "$tmp/receiver.log" &
pids+=($!)
wait_port 18088
for gz in false true; do
  "$java_bin" -Xmx256m -cp "$bench" io.sluice.bench.hec.HecLoad 18088 "$events" 4 1000 "$gz"
done
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true
grep -E "Count|delivered" "$tmp/receiver.log" | tail -2 || true
fi
[[ " ${PARTS:-1 2} " == *" 2 "* ]] || exit 0

lines=1000000
echo "== 2. $lines NDJSON lines (~250 B) -> producer.SplunkHEC -> discarding HTTP server"
source_kind=socket
if ! "$java_bin" -jar "$cli" list 2>/dev/null | grep -q "consumer.Socket"; then
  source_kind=profiler
  echo "   (consumer.Socket not available: consumer.Profiler with 250-byte messages is the source)"
else
  python3 - "$tmp/lines.ndjson" "$lines" <<'PY'
import random, string, sys
random.seed(1)
alpha = string.ascii_letters + string.digits
with open(sys.argv[1], "w") as f:
    for i in range(int(sys.argv[2])):
        pad = "".join(random.choices(alpha, k=180))
        f.write('{"level":"info","service":"checkout","n":%d,"msg":"%s"}\n' % (i, pad[: 250 - 60 - len(str(i))]))
PY
fi
warmup=${WARMUP:-0}
[ "$source_kind" = socket ] && [ "$warmup" -gt 0 ] && head -n "$warmup" "$tmp/lines.ndjson" > "$tmp/warmup.ndjson"
for gz in ${GZIP_CASES:-false true}; do
  port=$((18090 + ${#pids[@]}))
  # The sink runs C1 only: C2 recompiled its request loop during timed runs (after traps on paths its warm-up
  # had not taken), on the cores Sluice needs. SINK_JAVA_OPTS replaces these options.
  "$java_bin" -Xmx256m ${SINK_JAVA_OPTS--XX:TieredStopAtLevel=1} -cp "$bench" io.sluice.bench.hec.HecDiscardServer "$port" "$((lines + warmup))" "$warmup" > "$tmp/sink.out" &
  sink=$!; pids+=($sink)
  for _ in $(seq 1 100); do grep -q listening "$tmp/sink.out" && break; sleep 0.1; done # it warms itself first
  if [ "$source_kind" = socket ]; then
    src="\"In\":
    Type: \"consumer.Socket\"
    Address: \"tcp://127.0.0.1:15880\"
    Streams: \"ndjson\""
  else
    src="\"In\":
    Type: \"consumer.Profiler\"
    Runs: 10000
    Batches: $(((lines + warmup) / 10000))
    Message: \"%250s\"
    KeepRunning: true
    Streams: \"ndjson\""
  fi
  cat > "$tmp/producer.yaml" <<YAML
$src
"Hec":
    Type: "producer.SplunkHEC"
    Streams: "ndjson"
    Endpoint: "http://127.0.0.1:$port"
    Token: "bench"
    Gzip: $gz
YAML
  "$java_bin" "${jvm[@]}" -jar "$cli" -c "$tmp/producer.yaml" > /dev/null 2> "$tmp/producer.log" &
  sluice=$!; pids+=($sluice)
  t0=
  if [ "$source_kind" = socket ]; then
    wait_port 15880
    if [ "$warmup" -gt 0 ]; then
      cat "$tmp/warmup.ndjson" > /dev/tcp/127.0.0.1/15880
      for _ in $(seq 1 600); do grep -q "^warm:" "$tmp/sink.out" && break; sleep 0.1; done
    fi
    cpu0=$(cpu_ticks "$sluice")
    t0=$(date +%s.%N)
    cat "$tmp/lines.ndjson" > /dev/tcp/127.0.0.1/15880
  fi
  wait "$sink" || true
  cpu=""
  [ -n "$t0" ] && cpu=$(awk -v a="$cpu0" -v b="$(cpu_ticks "$sluice")" -v n="$lines" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "Sluice CPU %.2f s = %.2f us/event | ", (b - a) / hz, (b - a) / hz / n * 1e6 }')
  last=$(grep -o 'last event at epoch [0-9.]*' "$tmp/sink.out" | awk '{print $NF}')
  sent=""
  [ -n "$t0" ] && sent=$(awk -v n="$lines" -v a="$t0" -v b="$last" 'BEGIN { printf "first byte sent -> last event: %.3f s = %.0f events/s | ", b - a, n / (b - a) }')
  echo "   gzip=$gz${warmup:+ (after $warmup warm-up lines)}: $sent$cpu$(grep events/s "$tmp/sink.out")"
  kill "$sluice" 2>/dev/null; wait "$sluice" 2>/dev/null || true
done
