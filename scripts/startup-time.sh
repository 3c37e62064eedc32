#!/usr/bin/env bash
# Start to first event, from the tarball: the time from starting bin/sluice with no arguments (the quickstart,
# conf/quickstart.yaml) until its first sample event is on stdout. Median of RUNS runs (default 10) after one
# warm-up run, for each Java in JAVAS, in three variants:
#   no archive      SLUICE_CDS=off
#   tarball's       the lib/sluice.jsa the build made (fits only the JDK build that made it; Java 17 also
#                   needs the jar at the path it had then, so after unpacking elsewhere it is ignored)
#   sluice-cds      the archive bin/sluice-cds makes after unpacking, with that Java and in that folder
# Usage:
#   ./mvnw -B -Pdist package -DskipTests -pl sluice-dist -am
#   scripts/startup-time.sh [TARBALL]       default sluice-dist/target/sluice-*.tar.gz
#   JAVAS="/path/to/jdk-17 /path/to/jdk-25" RUNS=10 scripts/startup-time.sh      (Java homes)
# Linux (GNU date +%N). Every run stops sluice with SIGTERM and expects exit 0. Numbers depend on the
# machine and its load: the load average is printed with them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tarball="${1:-$(ls "$root"/sluice-dist/target/sluice-*.tar.gz 2>/dev/null | head -n1)}"
[ -f "$tarball" ] || { echo "startup-time: no tarball; build it: ./mvnw -B -Pdist package -DskipTests -pl sluice-dist -am" >&2; exit 1; }
runs="${RUNS:-10}"
if [ -z "${JAVAS:-}" ]; then
  JAVAS="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
fi

work="$(mktemp -d)"
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# One run: sets ms to the milliseconds from start to the first line on stdout.
ms=0
once() { # home java_home cds_mode
  local fifo="$work/fifo" line start end code
  rm -f "$fifo"
  mkfifo "$fifo"
  start=$(date +%s%N)
  env JAVA_HOME="$2" SLUICE_CDS="$3" "$1/bin/sluice" >"$fifo" 2>"$work/stderr" &
  pid=$!
  if ! IFS= read -r line <"$fifo"; then
    echo "startup-time: sluice printed nothing; its stderr:" >&2
    cat "$work/stderr" >&2
    exit 1
  fi
  end=$(date +%s%N)
  kill -TERM "$pid"
  code=0
  wait "$pid" || code=$?
  pid=
  if [ "$code" -ne 0 ]; then
    echo "startup-time: sluice exited $code after SIGTERM; its stderr:" >&2
    cat "$work/stderr" >&2
    exit 1
  fi
  ms=$(((end - start) / 1000000))
}

# Prints a result line: median, min and max of RUNS runs after a warm-up.
measure() { # label archive home java_home cds_mode
  local label="$1" archive="$2" i times=()
  shift 2
  once "$@"
  for ((i = 0; i < runs; i++)); do
    once "$@"
    times+=("$ms")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" -v archive="$archive" '{ t[NR] = $1 } END {
    m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
    printf "%-34s %-12s %8.0f %6d %6d\n", label, archive, m, t[1], t[NR] }'
}

echo "start to first event, ms: median min max of $runs runs ($(basename "$tarball"); load average $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-34s %-12s %8s %6s %6s\n' "java" "archive" "median" "min" "max"
n=0
for java_home in $JAVAS; do
  n=$((n + 1))
  version="$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$java_home/release" 2>/dev/null || true)"
  label="${version:-$java_home}"
  mkdir -p "$work/$n"
  tar -xzf "$tarball" -C "$work/$n"
  home="$(echo "$work/$n"/sluice-*)"
  measure "$label" none "$home" "$java_home" off
  if [ -f "$home/lib/sluice.jsa" ]; then
    measure "$label" "tarball's" "$home" "$java_home" auto
  fi
  JAVA_HOME="$java_home" "$home/bin/sluice-cds" >/dev/null
  measure "$label" sluice-cds "$home" "$java_home" auto
done
