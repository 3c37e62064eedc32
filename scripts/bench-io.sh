#!/usr/bin/env bash
# Whole-process measurements of sluice-io against sluice-io's bar in BENCHMARKS.md. Each case runs the runnable jar and reads
# the figure producer.Benchmark prints at shutdown ("delivered N messages ... msg/s", first generated to
# last delivered), or the file size and time for producer.File.
#
#   scripts/bench-io.sh [tcp|file-in|file-out|all] [LINES]
#
# Builds sluice-cli/target/sluice.jar if missing (mvn -B -q -pl sluice-cli -am install -DskipTests).
# Bar: tcp ≥ 1.1M lines/s (1M lines of 250 B); file-in ≥ 3.7M lines/s (1 GB, 250 B lines);
#      file-out ≥ 400 MB/s plain, ≥ 150 MB/s of input to .gz.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar=${SLUICE_JAR:-"$here/sluice-cli/target/sluice.jar"} # SLUICE_JAR: another build, for A/B runs
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
what="${1:-all}"
work="${BENCH_DIR:-$(mktemp -d /tmp/sluice-bench-io.XXXXXX)}"
mkdir -p "$work"
JAVA_OPTS="${SLUICE_JAVA_OPTS:--Xms256m -Xmx512m -XX:+UseParallelGC}"

[ -f "$jar" ] || (cd "$here" && mvn -B -q -pl sluice-cli -am install -DskipTests)

run() { # config-file → stderr log
  "$java_bin" $JAVA_OPTS -jar "$jar" -c "$1" --no-stats 2> "$2" || { cat "$2" >&2; return 1; }
}

# NDJSON lines of exactly 250 bytes (249 + newline), all different.
make_lines() { # count file
  awk -v n="$1" 'BEGIN { pad = sprintf("%300s", ""); gsub(/ /, "x", pad);
    for (i = 0; i < n; i++) { s = sprintf("{\"n\":%d,\"level\":\"info\",\"msg\":\"%s", i, pad);
      printf "%s\"}\n", substr(s, 1, 247) } }' > "$2"
}

bench_tcp() {
  local lines="${1:-1000000}" port=$((20000 + RANDOM % 20000))
  make_lines "$lines" "$work/tcp.ndjson"
  cat > "$work/tcp.yaml" <<YAML
"In":
    Type: consumer.Socket
    Address: "tcp://127.0.0.1:$port"
    Streams: s
"Count":
    Type: producer.Benchmark
    Streams: s
YAML
  "$java_bin" $JAVA_OPTS -jar "$jar" -c "$work/tcp.yaml" --no-stats 2> "$work/tcp.log" &
  local pid=$!
  for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
  cat "$work/tcp.ndjson" > "/dev/tcp/127.0.0.1/$port"
  # The figure is first generated → last delivered; waiting before SIGTERM does not change it.
  sleep 2
  kill -TERM "$pid"; wait "$pid" || true
  echo "tcp ($lines lines of 250 B, one connection): $(grep -o 'delivered.*' "$work/tcp.log")"
}

bench_file_in() {
  local lines="${1:-4000000}"   # 4M × 250 B = 1 GB
  make_lines "$lines" "$work/in.ndjson"
  cat > "$work/file-in.yaml" <<YAML
"In":
    Type: consumer.File
    File: "$work/in.ndjson"
    DefaultOffset: oldest
    ExitOnEOF: true
    Streams: s
"Count":
    Type: producer.Benchmark
    Streams: s
YAML
  cat "$work/in.ndjson" > /dev/null   # page cache, as the Fluent Bit figure was taken warm
  run "$work/file-in.yaml" "$work/file-in.log"
  echo "file-in ($(du -h "$work/in.ndjson" | cut -f1), 250 B lines): $(grep -o 'delivered.*' "$work/file-in.log")"
}

bench_file_out() {
  local runs="${1:-4000000}"
  for ext in ndjson ndjson.gz; do
    rm -f "$work/out.$ext"
    cat > "$work/file-out.yaml" <<YAML
"Profiler":
    Type: consumer.Profiler
    Runs: $runs
    Batches: 1
    Characters: "abcdefghijklmnopqrstuvwxyz .,!;:-_"
    Message: "{\"test\":\"%64s\",\"foo\":\"%32s|%32s\",\"bar\":\"%64s\",\"thisisquitealongstring\":\"%64s\"}"
    Streams: profile
    KeepRunning: false
"Out":
    Type: producer.File
    File: "$work/out.$ext"
    Streams: profile
YAML
    run "$work/file-out.yaml" "$work/file-out.log"
    echo "file-out .$ext: $(grep -o 'wrote .*' "$work/file-out.log")"
    [ "$ext" = ndjson.gz ] && gzip -t "$work/out.$ext" && echo "  gzip -t: ok"
  done
}

case "$what" in
  tcp) bench_tcp "${2:-1000000}" ;;
  file-in) bench_file_in "${2:-4000000}" ;;
  file-out) bench_file_out "${2:-4000000}" ;;
  all) bench_tcp "${2:-1000000}"; bench_file_in; bench_file_out ;;
  *) echo "usage: $0 [tcp|file-in|file-out|all] [LINES]" >&2; exit 2 ;;
esac
echo "(work files in $work)"
