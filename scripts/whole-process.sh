#!/usr/bin/env bash
# Whole-process wall time and peak RSS of several commands, run in turn (A B C A B C ...) so that a busy spell on
# a shared machine hits each alike; prints the median, min and max wall seconds, the median peak RSS and the
# median CPU seconds (user + sys) of each.
# Every run must exit 0 (its stderr is shown otherwise). stdout and stderr of the runs are discarded.
# Usage: RUNS=7 scripts/whole-process.sh 'LABEL=COMMAND' ...
#   RUNS=7 scripts/whole-process.sh "gollum=gollum -c examples/gollum/profile_json.conf" \
#       "sluice=./sluice -c examples/gollum/profile_json.conf"
# Needs GNU time (/usr/bin/time) and GNU date (+%N). Prints the load average before and after: the figures depend on it.
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
    start=$(date +%s%N)
    if ! /usr/bin/time -o "$work/t" -f "%M %U %S" bash -c "${cmds[$c]}" >/dev/null 2>"$work/err"; then
      echo "${labels[$c]}: exited non-zero; stderr:" >&2
      tail -20 "$work/err" >&2
      exit 1
    fi
    end=$(date +%s%N)
    # wall seconds (to the millisecond, GNU time's %e has 10 ms), peak RSS KB, user s, sys s
    echo "$(((end - start) / 1000000)) $(tail -n1 "$work/t")" | awk '{ printf "%.3f %s %s %s\n", $1 / 1000, $2, $3, $4 }' >>"$work/$c"
  done
done
printf '%-24s %8s %8s %8s %10s %8s  %s\n' label median min max "RSS MB" "CPU s" "runs (s)"
for ((c = 0; c < ${#cmds[@]}; c++)); do
  rss=$(sort -n -k2 "$work/$c" | awk '{ m[NR] = $2 } END { print (NR % 2) ? m[(NR + 1) / 2] : (m[NR / 2] + m[NR / 2 + 1]) / 2 }')
  cpu=$(awk '{ print $3 + $4 }' "$work/$c" | sort -n | awk '{ c[NR] = $1 } END { print (NR % 2) ? c[(NR + 1) / 2] : (c[NR / 2] + c[NR / 2 + 1]) / 2 }')
  sort -n "$work/$c" | awk -v label="${labels[$c]}" -v rss="$rss" -v cpu="$cpu" '
    { w[NR] = $1; all = all " " $1 }
    END {
      med = (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2
      printf "%-24s %8.3f %8.3f %8.3f %10.0f %8.2f %s\n", label, med, w[1], w[NR], rss / 1024, cpu, all }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
