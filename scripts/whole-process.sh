#!/usr/bin/env bash
# Whole-process wall time and peak RSS of several commands, run in turn (A B C A B C ...) so that a busy spell on
# a shared machine hits each alike; prints the median, min and max wall seconds and the median peak RSS of each.
# Every run must exit 0 (its stderr is shown otherwise). stdout and stderr of the runs are discarded.
# Usage: RUNS=7 scripts/whole-process.sh 'LABEL=COMMAND' ...
#   RUNS=7 scripts/whole-process.sh "gollum=gollum -c examples/gollum/profile_json.conf" \
#       "sluice=./sluice -c examples/gollum/profile_json.conf"
# Needs GNU time (/usr/bin/time). Prints the load average before and after: the figures depend on it.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-7}
labels=()
cmds=()
for a in "$@"; do
  labels+=("${a%%=*}")
  cmds+=("${a#*=}")
done
[ ${#cmds[@]} -gt 0 ] || { echo "usage: RUNS=7 $0 'LABEL=COMMAND' ..." >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each, alternating"
for ((r = 0; r < runs; r++)); do
  for ((c = 0; c < ${#cmds[@]}; c++)); do
    if ! /usr/bin/time -o "$work/t" -f "%e %M" bash -c "${cmds[$c]}" >/dev/null 2>"$work/err"; then
      echo "${labels[$c]}: exited non-zero; stderr:" >&2
      tail -20 "$work/err" >&2
      exit 1
    fi
    tail -n1 "$work/t" >>"$work/$c"
  done
done
printf '%-24s %8s %8s %8s %10s  %s\n' label median min max "RSS MB" "runs (s)"
for ((c = 0; c < ${#cmds[@]}; c++)); do
  rss=$(sort -n -k2 "$work/$c" | awk '{ m[NR] = $2 } END { print (NR % 2) ? m[(NR + 1) / 2] : (m[NR / 2] + m[NR / 2 + 1]) / 2 }')
  sort -n "$work/$c" | awk -v label="${labels[$c]}" -v rss="$rss" '
    { w[NR] = $1; all = all " " $1 }
    END {
      med = (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2
      printf "%-24s %8.2f %8.2f %8.2f %10.0f %s\n", label, med, w[1], w[NR], rss / 1024, all }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
