#!/usr/bin/env bash
# Draws the benchmark charts shown in the README from the recorded results (no dependency beyond awk):
#   docs/benchmarks/results.tsv -> docs/benchmarks/throughput.svg  (Sluice next to the peer, per workload)
#   docs/benchmarks/rss.tsv     -> docs/benchmarks/rss.svg         (peak RSS per hostile-input scenario, with its bar)
# Usage: scripts/charts.sh   (run it after adding a figure to BENCHMARKS.md and its line to the .tsv)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=docs/benchmarks

awk -F'\t' '
  function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
  /^#/ || NF < 5 { next }
  { n++; w[n] = $1; u[n] = $2; s[n] = $3; p[n] = $4; v[n] = $5; st[n] = $6 }
  END {
    row = 46; left = 330; width = 420; h = 60 + n * row
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", h
    printf "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Throughput: Sluice (blue) next to the peer on the same machine (grey)</text>\n"
    printf "<text x=\"10\" y=\"40\" fill=\"#555\">Each pair is scaled to its larger bar; the label gives the value and Sluice / peer. From BENCHMARKS.md.</text>\n"
    for (i = 1; i <= n; i++) {
      y = 56 + (i - 1) * row; max = s[i] > v[i] ? s[i] : v[i]
      printf "<text x=\"10\" y=\"%d\">%s</text>\n", y + 12, esc(w[i])
      printf "<text x=\"10\" y=\"%d\" fill=\"#777\" font-size=\"10\">%s</text>\n", y + 26, esc(st[i])
      sw = width * s[i] / max; pw = width * v[i] / max
      printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#2b6cb0\"/>\n", left, y, sw
      printf "<text x=\"%.1f\" y=\"%d\">%s %s (%.1f×)</text>\n", left + sw + 6, y + 12, s[i], esc(u[i]), s[i] / v[i]
      printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#a0aec0\"/>\n", left, y + 18, pw
      printf "<text x=\"%.1f\" y=\"%d\" fill=\"#555\">%s %s</text>\n", left + pw + 6, y + 29, v[i], esc(p[i])
    }
    print "</svg>"
  }' "$dir/results.tsv" > "$dir/throughput.svg"

awk -F'\t' '
  function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
  /^#/ || NF < 3 { next }
  { n++; w[n] = $1; r[n] = $2; bar = $3 }
  END {
    row = 26; left = 420; width = 400; h = 70 + n * row; scale = width / bar
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", h
    printf "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Peak RSS under attack, at the launcher heap (-Xmx192m)</text>\n"
    printf "<text x=\"10\" y=\"40\" fill=\"#555\">Each bar is the process peak (VmHWM) after the attack; the red line is the %d MB bar.</text>\n", bar
    for (i = 1; i <= n; i++) {
      y = 52 + (i - 1) * row
      printf "<text x=\"10\" y=\"%d\">%s</text>\n", y + 12, esc(w[i])
      printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#2b6cb0\"/>\n", left, y, r[i] * scale
      printf "<text x=\"%.1f\" y=\"%d\">%d MB</text>\n", left + r[i] * scale + 6, y + 12, r[i]
    }
    printf "<line x1=\"%d\" y1=\"48\" x2=\"%d\" y2=\"%d\" stroke=\"#c53030\" stroke-width=\"2\"/>\n", left + width, left + width, h - 8
    print "</svg>"
  }' "$dir/rss.tsv" > "$dir/rss.svg"
echo "wrote $dir/throughput.svg and $dir/rss.svg"
