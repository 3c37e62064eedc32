#!/usr/bin/env bash
# Runs the Jazzer @FuzzTest targets in fuzzing mode, one target per JVM, one after another (docs/security.md).
#
#   scripts/fuzz.sh [DURATION] [TARGET...]
#
# DURATION: seconds, or with a unit: 90s, 10m, 1h (default 1h) per target.
# TARGET:   a substring of Class#method (JsonScannerFuzzTest, SyslogParserFuzzTest#rfc5424); default all.
#           scripts/fuzz.sh --list prints them.
#
# Generated corpora grow in .fuzz/<module>/.cifuzz-corpus/<Class>/<method>/ (gitignored) and are reused by the
# next run; the committed seeds under src/test/resources/<package>/<Class>Inputs/<method>/ are read too. A
# crashing input lands in .fuzz/findings/<Class>/<method>/: reproduce it by copying it into the Inputs
# directory and running the test class normally (the regression replay runs it). Per target it prints
# executions, duration, corpus size and findings; logs are in .fuzz/logs/.
#
# Environment: MVN (default ./mvnw -B -o), FUZZ_HEAP (default 1g: a decoder that allocates what a length
# field says shows up as an OutOfMemoryError finding), FUZZ_TIMEOUT (seconds for one input, default 10).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mvn_cmd=${MVN:-"./mvnw -B -o"}
heap=${FUZZ_HEAP:-1g}
timeout=${FUZZ_TIMEOUT:-10}

targets() { # module Class method, one per line, from every *FuzzTest.java
  grep -rl --include='*FuzzTest.java' '@FuzzTest' -- */src/test/java | sort | while read -r f; do
    module=${f%%/src/test/java/*}
    class=$(basename "$f" .java)
    awk -v m="$module" -v c="$class" '/@FuzzTest/ { want = 1; next }
      want && match($0, /void [A-Za-z0-9_]+\(/) { print m, c, substr($0, RSTART + 5, RLENGTH - 6); want = 0 }' "$f"
  done
}

seconds() {
  case "$1" in
    *h) echo $(( ${1%h} * 3600 )) ;;
    *m) echo $(( ${1%m} * 60 )) ;;
    *s) echo "${1%s}" ;;
    *) echo "$1" ;;
  esac
}

if [ "${1:-}" = --list ]; then
  targets | awk '{ print $2 "#" $3 "  (" $1 ")" }'
  exit 0
fi
duration=$(seconds "${1:-1h}")
shift || true

selected() { # Class#method → whether it matches any TARGET argument (all when none)
  [ "$#" -le 1 ] && return 0
  local name=$1
  shift
  for t in "$@"; do
    case "$name" in *"$t"*) return 0 ;; esac
  done
  return 1
}

mkdir -p .fuzz/logs
printf '%-50s %12s %9s %9s %8s %9s\n' target executions fuzzed wall corpus findings
failed=0
while read -r module class method; do
  selected "$class#$method" "$@" || continue
  package=$(grep -m1 '^package ' "$(find "$module/src/test/java" -name "$class.java")" | sed 's/package \(.*\);/\1/')
  corpus=".fuzz/$module/.cifuzz-corpus/$package.$class/$method"
  findings=".fuzz/findings/$class/$method"
  log=".fuzz/logs/$class-$method.log"
  mkdir -p "$findings"
  before=$(find "$findings" -type f | wc -l)
  start=$(date +%s)
  # One JVM per target: Jazzer fuzzes one method per run. The libFuzzer flags come after the annotation's
  # (jazzer.internal.arg.N), so -max_total_time here wins over @FuzzTest(maxDuration).
  JAZZER_FUZZ=1 $mvn_cmd -pl "$module" -am test \
    -Dtest="$class#$method" -Dsurefire.failIfNoSpecifiedTests=false \
    -DargLine="-Xmx$heap" \
    -Djazzer.internal.basedir="$root/.fuzz/$module" \
    -Djazzer.internal.arg.0=fake_argv0 \
    -Djazzer.internal.arg.1=-max_total_time="$duration" \
    -Djazzer.internal.arg.2=-timeout="$timeout" \
    -Djazzer.internal.arg.3=-print_final_stats=1 \
    -Djazzer.internal.arg.4=-artifact_prefix="$root/$findings/" \
    >"$log" 2>&1 && status=0 || status=$?
  elapsed=$(( $(date +%s) - start ))
  # libFuzzer's own count and time ("Done N runs in S second(s)"); the wall time adds Maven and JVM start.
  runs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{ print $2 }' || true)
  fuzzed=$(grep -m1 '^Done [0-9]* runs in' "$log" | awk '{ print $5 }' || true)
  size=$(find "$corpus" -type f 2>/dev/null | wc -l)
  found=$(( $(find "$findings" -type f | wc -l) - before ))
  if [ "$status" -ne 0 ] && [ "$found" -eq 0 ]; then
    found="error" # the build or the test failed without an artifact: read the log
  fi
  [ "$status" -ne 0 ] && failed=1
  printf '%-50s %12s %8ss %8ss %8s %9s\n' "$class#$method" "${runs:-?}" "${fuzzed:-?}" "$elapsed" "$size" "$found"
done < <(targets)
exit "$failed"
