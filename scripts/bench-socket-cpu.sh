#!/usr/bin/env bash
# CPU per event of consumer.Socket on a warm server (issue 17): NDJSON lines over one TCP connection into
# consumer.Socket -> producer.Null, with the launcher's JVM options; the figure is the process's CPU time (user +
# sys ticks, /proc/PID/stat fields 14 and 15) over the timed part divided by its events, which a machine shared with
# other work disturbs less than a rate does. Alternate jars run by run and compare medians.
#
#   scripts/bench-socket-cpu.sh RUNS "JAR..." [lines|json]
#
#   json: the consumer has Modulators: [format.JSON]. The data is io.sluice.bench.peer.NeutralData's (the events of
#   scripts/bench-peers.sh): 1M lines sent and counted first (warm-up), then 2M lines sent REPS times (default 2)
#   and timed until producer.Null has counted them all. Prints one line per run: jar, CPU ns per event, events/s.
#   Extra JVM options: JVM_OPTS=...; extra consumer settings: one "Key: value" line in SOCKET_SETTING=.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=${1:-5}
jars=${2:-$here/sluice-cli/target/sluice.jar}
workload=${3:-lines}
reps=${REPS:-2}
bench=$here/sluice-bench/target/benchmarks.jar
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
[ -f "$bench" ] || (cd "$here" && mvn -B -q -o -Pbench -pl sluice-bench -am package -DskipTests)
tmp=$(mktemp -d /tmp/bench-socket-cpu.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
"$java_bin" -cp "$bench" io.sluice.bench.peer.NeutralData "$tmp/data" 2000000 > /dev/null
"$java_bin" -cp "$bench" io.sluice.bench.peer.NeutralData "$tmp/warm" 1000000 > /dev/null
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
send() { python3 "$here/scripts/lib/neutral_send.py" stream "$2" "$1" > /dev/null; }
count() { curl -s "http://127.0.0.1:$1/metrics" | awk '/^sluice_messages_out_total\{/ && /kind="producer"/ { s += $2 } END { printf "%d", s }'; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
echo "# $(date -u +%FT%TZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $("$java_bin" -version 2>&1 | head -1)"
for r in $(seq 1 "$runs"); do
  for jar in $jars; do
    port=$(free_port); admin=$(free_port)
    { printf '"In":\n    Type: consumer.Socket\n    Address: "tcp://127.0.0.1:%s"\n    Streams: bench\n' "$port"
      [ -n "${SOCKET_SETTING:-}" ] && printf '    %s\n' "$SOCKET_SETTING"
      [ "$workload" = json ] && printf '    Modulators:\n        - format.JSON\n'
      printf '"Out":\n    Type: producer.Null\n    Streams: bench\n'; } > "$tmp/c.yaml"
    # shellcheck disable=SC2086 # JVM_OPTS is a list of options
    "$java_bin" -Xms64m -Xmx192m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError ${JVM_OPTS:-} -jar "$jar" \
      -c "$tmp/c.yaml" --admin "127.0.0.1:$admin" > "$tmp/log" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do
      curl -sf "http://127.0.0.1:$admin/metrics" > /dev/null 2>&1 \
        && python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
      sleep 0.05
    done
    send "$tmp/warm/lines.ndjson" "$port"
    while [ "$(count "$admin")" -lt 1000000 ]; do sleep 0.02; done
    t0=$(ticks "$pid"); w0=$(date +%s.%N)
    for _ in $(seq 1 "$reps"); do send "$tmp/data/lines.ndjson" "$port"; done
    while [ "$(count "$admin")" -lt $(( 1000000 + 2000000 * reps )) ]; do sleep 0.02; done
    t1=$(ticks "$pid"); w1=$(date +%s.%N)
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=
    awk -v j="$jar" -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v n=$(( 2000000 * reps )) -v hz="$(getconf CLK_TCK)" \
      'BEGIN { printf "%s %.0f ns/event %.0f events/s\n", j, (b - a) / hz * 1e9 / n, n / (w1 - w0) }'
  done
done
