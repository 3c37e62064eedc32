#!/usr/bin/env bash
# Runs Gollum's performance profiles (examples/gollum/*.conf, unchanged) through the runnable jar, several
# times per JDK, and prints one line per run plus the median msg/s:
#   msg/s counted by producer.Benchmark = delivered ÷ (last delivered − first generated)
#   wall, user and sys CPU and max RSS from /usr/bin/time -v (the whole process, JVM start included).
# Usage: scripts/bench-profiles.sh [runs=5] [profiles="raw format multi"] [jdks="17 25"]
# Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
profiles=${2:-"raw format multi json json_v05"}
jdks=${3:-"17 25"}
jar=${SLUICE_JAR:-sluice-cli/target/sluice.jar} # SLUICE_JAR: another build, for A/B runs
[ -f "$jar" ] || mvn -B -q -DskipTests -pl sluice-cli -am install
declare -A home=([17]=/usr/lib/jvm/java-17-openjdk-amd64 [25]=/usr/lib/jvm/temurin-25-jdk-amd64)
opts="-Xms64m -Xmx192m -XX:+UseParallelGC"
for jdk in $jdks; do
  java="${home[$jdk]}/bin/java"
  for p in $profiles; do
    rates=()
    for i in $(seq 1 "$runs"); do
      log=$(mktemp)
      /usr/bin/time -v "$java" $opts -jar "$jar" -c "examples/gollum/profile_$p.conf" --no-stats --no-admin 2> "$log" > /dev/null
      rate=$(grep -o 'delivered [0-9,]* messages.* = [0-9,]* msg/s' "$log" | sed 's/.*= \([0-9,]*\) msg\/s/\1/' | tr -d ,)
      wall=$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')
      user=$(grep 'User time' "$log" | awk '{print $NF}')
      sys=$(grep 'System time' "$log" | awk '{print $NF}')
      rss=$(grep 'Maximum resident' "$log" | awk '{print $NF}')
      printf 'jdk%s %-7s run %d: %12s msg/s  wall %s  user %ss  sys %ss  maxRSS %d MB\n' "$jdk" "$p" "$i" "$rate" "$wall" "$user" "$sys" $((rss / 1024))
      rates+=("$rate")
      rm -f "$log"
    done
    median=$(printf '%s\n' "${rates[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf 'jdk%s %-7s MEDIAN %12s msg/s over %d runs\n' "$jdk" "$p" "$median" "$runs"
  done
done
