#!/usr/bin/env bash
# Fails when a file in the repository refers to a path outside it: a relative path ("../x") that climbs above
# the repository root from the file's own folder, or the folder the project was founded beside ("shared/").
# A clone in an empty folder must build and pass its tests with nothing beside it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bad=0
while IFS= read -r -d '' file; do
  dir="$(dirname "$file")"
  while IFS= read -r ref; do
    [ -n "$ref" ] || continue
    target="$(realpath -m "$root/$dir/$ref")"
    case "$target/" in
      "$root"/*) ;;
      *) echo "$file: refers to $ref, outside the repository" >&2; bad=1 ;;
    esac
  done < <(grep -oE '(\.\./)+[A-Za-z0-9_.-]*' "$file" 2>/dev/null || true)
  if grep -nE '(^|[^A-Za-z0-9_-])shared/(vectors|seeds|tools|hooks|gollum-profiles|DESIGN)' "$file" >/dev/null 2>&1; then
    echo "$file: refers to the shared/ folder beside the repository" >&2; bad=1
  fi
done < <(git ls-files -z -- . ':!:scripts/check-self-contained.sh' 2>/dev/null | while IFS= read -r -d '' f; do
  # Text files only: a binary capture may hold any bytes.
  grep -Iq . "$f" 2>/dev/null && printf '%s\0' "$f"; done)
if [ "$bad" -ne 0 ]; then
  echo "check-self-contained: the repository must not depend on anything outside it" >&2
  exit 1
fi
echo "check-self-contained: no file refers to a path outside the repository"
