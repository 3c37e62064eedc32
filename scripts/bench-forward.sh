#!/usr/bin/env bash
# Whole-process Forward figures: consumer.Forward → producer.Benchmark, fed by
# io.sluice.bench.forward.ForwardLoad (frames encoded before the clock starts), events of ~250 bytes.
# Two figures: "sent→delivered" is the issue's, from the load generator's first byte sent to the last event
# counted at producer.Benchmark (wall clocks of the two processes, same machine); "in Sluice" is
# producer.Benchmark's own, from the first frame decoded to the last event delivered.
#   scripts/bench-forward.sh [EVENTS=4000000] [CASES="packed:1 packed:4 packed-ack:1 packed-ack:4 message:4 message-ack:4"]
# WARMUP=N sends N events first and waits until they are counted, so the timed run meets a warm JVM (a server
# that has been running); "in Sluice" then covers both runs, "sent→delivered" the timed one only.
# consumer.Forward runs on its defaults (Payload: json, Metadata: true), what a user gets; PAYLOAD=msgpack and
# METADATA=false pick the cheaper settings, and a figure taken with them says so in its label.
# SLUICE_JAVA_OPTS adds options to the Sluice JVM (a JFR recording, say).
# BUFFER=disk puts producer.Benchmark behind a disk buffer (Fsync: interval), so acks mean "on disk".
# Cases: PackedForward chunks of 1,000 over 1 and 4 connections, with and without acks; Message mode over 4
# connections; Message mode with an ack per message over 4 connections.
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-4000000}
jar=${SLUICE_JAR:-sluice-cli/target/sluice.jar} # SLUICE_JAR: another build, for A/B runs
bench=sluice-bench/target/benchmarks.jar
[ -f "$jar" ] || mvn -B -q -DskipTests -pl sluice-cli -am install
[ -f "$bench" ] || mvn -B -q -Pbench -pl sluice-bench -am package -DskipTests
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
work=$(mktemp -d /tmp/sluice-bench-forward.XXXXXX)
trap 'rm -rf "$work"' EXIT
await_count() { # admin-address count: waits until producer.Benchmark has counted that many
  for _ in $(seq 1 600); do
    out=$(curl -sf "http://127.0.0.1:$1/api/plugins" | python3 -c 'import json,sys; print([p["out"] for p in json.load(sys.stdin)["plugins"] if p["id"]=="Count"][0])')
    [ "$out" -ge "$2" ] && break; sleep 0.1
  done
}
run() { # mode connections events
  local mode=$1 conns=$2 n=$3 port admin
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  admin=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  cat > "$work/f.yaml" <<YAML
"In":
    Type: consumer.Forward
    Address: "127.0.0.1:$port"
$( [ -n "${PAYLOAD:-}" ] && printf '    Payload: %s\n' "$PAYLOAD" )
$( [ -n "${METADATA:-}" ] && printf '    Metadata: %s\n' "$METADATA" )
    Streams: bench
"Count":
    Type: producer.Benchmark
    Streams: bench
$( [ "${BUFFER:-memory}" = disk ] && printf '    Buffer/Type: disk\n    Buffer/Path: %s\n' "$work/buffer-$mode-$conns" )
YAML
  "$java_bin" -Xms64m -Xmx192m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError ${SLUICE_JAVA_OPTS:-} -jar "$jar" -c "$work/f.yaml" --no-stats --admin "127.0.0.1:$admin" 2> "$work/sluice.err" &
  local pid=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$admin/ready" > /dev/null && break; sleep 0.1; done
  local want=0
  if [ "${WARMUP:-0}" -gt 0 ]; then
    "$java_bin" -cp "$bench" io.sluice.bench.forward.ForwardLoad 127.0.0.1 "$port" "$mode" "$conns" "$WARMUP" > /dev/null
    want=$(( WARMUP / conns * conns ))
    await_count "$admin" "$want"
  fi
  "$java_bin" -cp "$bench" io.sluice.bench.forward.ForwardLoad 127.0.0.1 "$port" "$mode" "$conns" "$n" > "$work/load.out"
  want=$(( want + n / conns * conns ))
  await_count "$admin" "$want"
  kill -TERM $pid; wait $pid || true
  local sent_at last_at rate
  sent_at=$(grep -o 'first byte sent at epoch [0-9.]*' "$work/load.out" | awk '{print $NF}')
  last_at=$(grep -o 'last delivered at epoch [0-9.]*' "$work/sluice.err" | awk '{print $NF}')
  rate=$(awk -v n="$(( n / conns * conns ))" -v a="$sent_at" -v b="$last_at" 'BEGIN { printf "%.0f", n / (b - a) }')
  printf '%-12s %d conn: sent→delivered %s events/s in %.3f s | in Sluice: %s | load: %s\n' "$mode" "$conns" \
    "$rate" "$(awk -v a="$sent_at" -v b="$last_at" 'BEGIN { print b - a }')" \
    "$(grep -o '= [0-9,]* msg/s' "$work/sluice.err")" "$(head -1 "$work/load.out")"
}
for c in ${2:-packed:1 packed:4 packed-ack:1 packed-ack:4 message:4 message-ack:4}; do
  mode=${c%%:*}; conns=${c##*:}
  n=$events; [ "$mode" = message-ack ] && n=$(( events / 4 ))
  run "$mode" "$conns" "$n"
done
