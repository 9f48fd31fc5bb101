#!/usr/bin/env bash
# Instructions per cold render (`passback_engine::render`, no cache) beside plain comrak with the
# same extensions on the same Markdown, counted by cachegrind for both bench families at 20 KB,
# and held to a bound: exits non-zero when the typical document passes TYPICAL_MAX times
# comrak's count or the component-dense one passes DENSE_MAX times. Time on a shared 2-core
# machine scatters by several percent; these counts repeat to within a few instructions, so CI
# checks them and never a duration.
#
# Each count is benches/examples/profile.rs run under valgrind twice, with 1 and 1 + RENDERS
# renders of one document; the difference over RENDERS is one render, with process start-up,
# building the document and the first render's one-time set-up taken out.
#
#   benches/render-instructions.sh [RENDERS]      (default 10)
#   TYPICAL_MAX=1.22 DENSE_MAX=1.84               (the bounds, overridable)
#
# Needs valgrind. Builds the release example first; then a few seconds.
set -euo pipefail
# A failed valgrind run inside `$(…)` stops the script too.
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
RENDERS="${1:-10}"
TYPICAL_MAX="${TYPICAL_MAX:-1.22}"
DENSE_MAX="${DENSE_MAX:-1.84}"
source benches/cachegrind.sh
start_counting render-instructions.sh

# `per_render DOC [comrak]`: instructions per render.
per_render() {
  local one many
  one="$(total 1 "$@")"
  cp "$WORK/out" "$WORK/out1"
  many="$(total $((RENDERS + 1)) "$@")"
  echo $(((many - one) / RENDERS))
}

echo "cold render against plain comrak under cachegrind: instructions per render, (N=$((RENDERS + 1)) − N=1)/$RENDERS"
failed=0
for family in typical dense; do
  passback="$(per_render "${family}20")"
  bytes="$(awk '{print $1; exit}' "$WORK/out1")"
  comrak="$(per_render "${family}20" comrak)"
  bound="$TYPICAL_MAX"
  [ "$family" = dense ] && bound="$DENSE_MAX"
  if ! awk -v f="$family" -v b="$bytes" -v p="$passback" -v c="$comrak" -v max="$bound" 'BEGIN {
    r = p / c
    printf "%-7s 20 KB (%d bytes): passback %d, comrak %d, ratio %.3f× (bound %.2f×)\n", f, b, p, c, r, max
    exit !(r <= max)
  }'; then
    echo "render-instructions.sh: the $family 20 KB document's cold render takes more than ${bound}× plain comrak's instructions" >&2
    failed=1
  fi
done
exit "$failed"
