#!/usr/bin/env bash
# Whether any Markdown shape known to drive parsers into superlinear work costs this engine more
# than linear work: each shape of benches/load/pathological.py is rendered at SMALL and at 4 ×
# SMALL bytes under cachegrind, and the instructions per byte of the large one are held to
# MAX_GROWTH times the small one's. Linear work gives about 1× (less, as the fixed costs spread);
# quadratic work gives about 4×. Counts, not time, so it repeats on any machine.
#
# One render's count is the whole process's with one render less its count with none (which
# reads and builds the document the same way).
#
#   benches/pathological-instructions.sh [SMALL]     (default 16000 bytes)
#   MAX_GROWTH=1.6                                    (the bound, overridable)
#
# Needs valgrind and python3. Builds the release example first; then a few minutes.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
SMALL="${1:-16000}"
MAX_GROWTH="${MAX_GROWTH:-1.6}"
source benches/cachegrind.sh
start_counting pathological-instructions.sh
python3 benches/load/pathological.py "$WORK/small" "$SMALL"
python3 benches/load/pathological.py "$WORK/large" "$((SMALL * 4))"

# `per_byte DOC`: one render's instructions per byte of DOC.
per_byte() {
  local none one
  none="$(total 0 "$1")"
  one="$(total 1 "$1")"
  awk -v n="$none" -v o="$one" -v b="$(wc -c <"$1")" 'BEGIN { printf "%.1f", (o - n) / b }'
}

echo "instructions per byte of one cold render, at $SMALL and $((SMALL * 4)) bytes (bound ${MAX_GROWTH}×)"
failed=0
for doc in "$WORK"/small/*.md; do
  shape="$(basename "$doc" .md)"
  small="$(per_byte "$doc")"
  large="$(per_byte "$WORK/large/$shape.md")"
  if ! awk -v s="$shape" -v a="$small" -v b="$large" -v max="$MAX_GROWTH" 'BEGIN {
    r = b / a
    printf "%-32s %10.1f %10.1f  %.2f×\n", s, a, b, r
    exit !(r <= max)
  }'; then
    echo "pathological-instructions.sh: $shape costs more than ${MAX_GROWTH}× the instructions per byte at 4× the size" >&2
    failed=1
  fi
done
exit "$failed"
