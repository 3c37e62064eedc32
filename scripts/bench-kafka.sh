#!/usr/bin/env bash
# Whole-process measurements of sluice-kafka against sluice-kafka's bar in BENCHMARKS.md, with a real KRaft broker started from the
# test class path (io.sluice.kafka.EmbeddedKafka, its own JVM) on 127.0.0.1:
#   produce: consumer.Profiler → producer.Kafka, 250-byte payloads, zstd, acks=all, idempotent
#            (bar: ≥ 1M events/s, counted as acknowledged by Kafka)
#   consume: consumer.Kafka (consumer group) → producer.Benchmark, reading what "produce" wrote
#            (bar: ≥ 1M events/s, producer.Benchmark's first generated → last delivered)
#   peer:    Kafka's own ProducerPerformance with the same settings, on the same broker (PEER=0 skips it)
#
#   scripts/bench-kafka.sh [EVENTS] [PARTITIONS]        defaults: 5000000 events, 6 partitions
#
# Each pipeline runs in one process via io.sluice.kafka.BenchRun (what `sluice -c` does, plus a stop once
# EVENTS were delivered, since a Kafka consumer never ends by itself). JAVA_HOME picks the JDK;
# BENCH_JAVA_OPTS the pipeline JVM's options; BROKER_JAVA_OPTS the broker's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
events="${1:-5000000}"
partitions="${2:-6}"
work="${BENCH_DIR:-$(mktemp -d /tmp/sluice-bench-kafka.XXXXXX)}"
mkdir -p "$work"
JAVA_OPTS="${BENCH_JAVA_OPTS:--Xms512m -Xmx1g -XX:+UseParallelGC}"
BROKER_OPTS="${BROKER_JAVA_OPTS:--Xms1g -Xmx1g -XX:+UseG1GC}"

cd "$here"
echo "building sluice-core and sluice-kafka (tests compiled, not run)..." >&2
mvn -B -q -pl sluice-core install -DskipTests >&2
mvn -B -q -pl sluice-kafka test-compile dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$work/cp.txt" >&2
cp="$here/sluice-kafka/target/test-classes:$here/sluice-kafka/target/classes:$(cat "$work/cp.txt")"

"$java_bin" $BROKER_OPTS -cp "$cp" io.sluice.kafka.EmbeddedKafka topic=bench partitions="$partitions" \
  > "$work/broker.out" 2> "$work/broker.err" &
broker=$!
trap 'kill -TERM $broker 2>/dev/null || true; wait $broker 2>/dev/null || true' EXIT
for _ in $(seq 600); do grep -q '^BOOTSTRAP' "$work/broker.out" 2>/dev/null && break; sleep 0.1; done
servers="$(sed -n 's/^BOOTSTRAP //p' "$work/broker.out")"
[ -n "$servers" ] || { echo "broker did not start:" >&2; cat "$work/broker.err" >&2; exit 1; }
echo "broker at $servers, topic bench with $partitions partitions" >&2

runs=10000
batches=$(( (events + runs - 1) / runs ))
cat > "$work/produce.yaml" <<YAML
"Generator":
    Type: consumer.Profiler
    Runs: $runs
    Batches: $batches
    Message: "%250s"
    Streams: bench
"ToKafka":
    Type: producer.Kafka
    Streams: bench
    Servers: ["$servers"]
    Topic: bench
    Compression: zstd
    ModulatorRoutines: 4          # four batches in flight, each waiting for its acknowledgement
YAML
cat > "$work/consume.yaml" <<YAML
"FromKafka":
    Type: consumer.Kafka
    Servers: ["$servers"]
    Topic: bench
    GroupId: bench-$$
    DefaultOffset: oldest
    Streams: bench
"Counter":
    Type: producer.Benchmark
    Streams: bench
YAML

total=$(( runs * batches ))
"$java_bin" $JAVA_OPTS -cp "$cp" io.sluice.kafka.BenchRun "$work/produce.yaml" 0 600 > "$work/produce.out" 2> "$work/produce.log"
echo "produce ($total events of 250 B, zstd, acks=all, idempotent): $(sed -n 's/^RESULT //p' "$work/produce.out")"
grep -o 'generated.*' "$work/produce.log" | sed 's/^/  profiler: /' || true

"$java_bin" $JAVA_OPTS -cp "$cp" io.sluice.kafka.BenchRun "$work/consume.yaml" "$total" 600 > "$work/consume.out" 2> "$work/consume.log"
echo "consume ($total events, group of one, $partitions partitions): $(grep -o 'delivered [0-9,]* messages.*' "$work/consume.log")"
echo "  whole run: $(sed -n 's/^RESULT //p' "$work/consume.out")"
# The peer on the same broker and topic: Kafka's own ProducerPerformance (kafka-tools, a test dependency), with
# the record size, compression, acks, idempotence and batching producer.Kafka uses by default.
if [ "${PEER:-1}" = 1 ]; then
  "$java_bin" $JAVA_OPTS -cp "$cp" org.apache.kafka.tools.ProducerPerformance --topic bench --num-records "$total" \
    --record-size 250 --throughput -1 --producer-props bootstrap.servers="$servers" compression.type=zstd acks=all \
    enable.idempotence=true linger.ms=5 batch.size=262144 max.request.size=1048576 > "$work/peer.out" 2> "$work/peer.err" || true
  echo "peer, kafka-tools ProducerPerformance ($total records of 250 B, same settings): $(tail -1 "$work/peer.out")"
fi
echo "logs in $work" >&2
