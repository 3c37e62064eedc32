#!/usr/bin/env bash
# consumer.HEC → producer.Null with one keep-alive client (issue 17), for A/B runs of Sluice jars: the rate and the
# process CPU per event. The client and data are scripts/bench-peers.sh's `hec` workload (python3 http.client
# posting pre-encoded bodies of 1,000 events of ~180 bytes, one connection, each answer read before the next).
#
#   scripts/bench-hec-client.sh [ROUNDS=3] [JAR...]     (default jar: sluice-cli/target/sluice.jar)
#
#   EVENTS=N   events in the timed run (default 2000000, a multiple of 1000)
#   WARMUP=N   events sent and counted first, in the same process (default 1000000; 0: a cold JVM)
#
# Each round runs every jar once, in turn (A, B, A, B, ...), each in a fresh process with the ./sluice launcher's
# JVM options. Rate = EVENTS / (time the last event was counted at the output - time of the first byte sent); the
# output's count is read after the sender finished, so no polling competes with the run. CPU = the Sluice process's
# user+sys ticks (/proc/PID/stat fields 14 and 15) over the timed run, per event; it includes the JIT and GC threads.
# The table gives medians.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
rounds=${1:-3}
shift || true
jars=("$@")
[ ${#jars[@]} -gt 0 ] || jars=(sluice-cli/target/sluice.jar)
events=${EVENTS:-2000000}
warmup=${WARMUP:-1000000}
bench=sluice-bench/target/benchmarks.jar
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
for j in "${jars[@]}"; do [ -f "$j" ] || { echo "no jar $j" >&2; exit 1; }; done
[ -f "$bench" ] || mvn -B -q -o -Pbench -pl sluice-bench -am package -DskipTests

tmp=$(mktemp -d /tmp/bench-hec-client.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

hz=$(getconf CLK_TCK)
echo "# $(date -u +%FT%TZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $("$java_bin" -version 2>&1 | head -1)"
"$java_bin" -cp "$bench" io.sluice.bench.peer.NeutralData "$tmp/data" "$events" | sed 's/^/# /'
if [ "$warmup" -gt 0 ]; then
  "$java_bin" -cp "$bench" io.sluice.bench.peer.NeutralData "$tmp/warm" "$warmup" > /dev/null
fi

cat > "$tmp/count.py" <<'PY'
import sys, time, urllib.request
port, n = int(sys.argv[1]), int(sys.argv[2])
end = time.time() + 300
while time.time() < end:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    seen = sum(int(float(l.rsplit(" ", 1)[1])) for l in text.splitlines()
               if l.startswith("sluice_messages_out_total{") and 'kind="producer"' in l)
    if seen >= n:
        print(f"{time.time():.6f} {seen}")
        sys.exit(0)
    time.sleep(0.005)
sys.exit(f"only {seen} of {n} events counted")
PY
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 300); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.05; done
  echo "nothing listens on port $1" >&2; return 1
}
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

for r in $(seq 1 "$rounds"); do
  for i in "${!jars[@]}"; do
    jar=${jars[$i]}
    port=$(free_port); admin=$(free_port)
    printf '"In":\n    Type: consumer.HEC\n    Address: "127.0.0.1:%s"\n    Streams: bench\n"Out":\n    Type: producer.Null\n    Streams: bench\n' \
      "$port" > "$tmp/sluice.yaml"
    "$java_bin" -Xms64m -Xmx192m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError -jar "$jar" \
      -c "$tmp/sluice.yaml" --admin "127.0.0.1:$admin" > "$tmp/log" 2>&1 &
    pid=$!
    wait_port "$admin" && wait_port "$port" || { cat "$tmp/log" >&2; exit 1; }
    if [ "$warmup" -gt 0 ]; then
      python3 scripts/lib/neutral_send.py hec "$port" "$tmp/warm/hec.bodies" > /dev/null
      python3 "$tmp/count.py" "$admin" "$warmup" > /dev/null
    fi
    t0=$(ticks "$pid")
    sent_at=$(python3 scripts/lib/neutral_send.py hec "$port" "$tmp/data/hec.bodies")
    counted=$(python3 "$tmp/count.py" "$admin" $(( warmup + events )))
    t1=$(ticks "$pid")
    [ "${counted#* }" -eq $(( warmup + events )) ] || { echo "counted ${counted#* }, sent $(( warmup + events ))" >&2; exit 1; }
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=
    awk -v n="$events" -v a="$sent_at" -v b="${counted%% *}" -v c=$(( t1 - t0 )) -v hz="$hz" -v i="$i" -v j="$jar" -v r="$r" \
      'BEGIN { printf "%d %s %.0f %.3f\n", i, j, n / (b - a), c / hz * 1e6 / n;
               printf "round %d %-40s %9.0f events/s  %.3f us CPU/event\n", r, j, n / (b - a), c / hz * 1e6 / n > "/dev/stderr" }' \
      >> "$tmp/results"
  done
done

echo
echo "$events events per run$([ "$warmup" -gt 0 ] && echo ", after a warm-up of $warmup in the same process" || echo ", cold JVM"); medians of $rounds runs"
echo
python3 - "$tmp/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    i, jar, rate, cpu = line.split()
    rows.setdefault((int(i), jar), []).append((float(rate), float(cpu)))
print("| jar | events/s | process CPU per event (us) | runs (events/s) |")
print("|---|---:|---:|---|")
for (i, jar), v in sorted(rows.items()):
    print(f"| {jar} | {statistics.median(r for r, _ in v):,.0f} | {statistics.median(c for _, c in v):.3f} | "
          f"{', '.join(f'{r / 1e6:.2f}M' for r, _ in v)} |")
PY
