#!/usr/bin/env bash
# Load test of `passback serve` on loopback with wrk: /healthz (the baseline), a cached render
# of a ~2 KB document, and an uncached render of the same document, in one run against one
# server. Prints requests/s and p50/p99 latency, and the ratios to /healthz.
#
#   benches/load.sh [SECONDS] [CONNECTIONS] [ROUNDS]
#       (defaults: 10 s per scenario, 32 connections, 1 round)
#
# With several rounds, the three scenarios run in turn in every round and each round's ratios
# are printed, then their medians: on a shared host, throughput drifts by several percent over
# a minute, and scenarios run back to back in short rounds see the same drift.
#
# Needs wrk (Debian: apt-get install -y wrk). Builds the release binary first.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
CONNECTIONS="${2:-32}"
ROUNDS="${3:-1}"
source benches/server.sh
need_wrk load.sh
start_server release
export DOC="benches/load/doc-2k.md"
curl -sf -o /dev/null -H 'content-type: text/markdown' --data-binary @"$DOC" "$URL/v1/render"

declare -A RPS # requests/s by scenario
run() { # name, then wrk arguments
  local name="$1"; shift
  local report
  report="$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@")"
  local rps p50 p99
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$report")"
  p50="$(awk '$1=="50%" {print $2}' <<<"$report")"
  p99="$(awk '$1=="99%" {print $2}' <<<"$report")"
  printf '%-22s %12s req/s   p50 %-9s p99 %s\n' "$name" "$rps" "$p50" "$p99"
  RPS[$name]="$rps"
}

echo "passback load test: $(nproc) cores, ${DURATION}s per scenario, $CONNECTIONS connections, $ROUNDS round(s), document $(wc -c <"$DOC") bytes"
hits() { curl -sf "$URL/metrics" | awk '/^passback_cache_hits_total / {print $2}'; }
CACHED_RATIOS=()
UNCACHED_RATIOS=()
for round in $(seq "$ROUNDS"); do
  [ "$ROUNDS" -gt 1 ] && echo "round $round"
  run healthz "$URL/healthz"
  run render-cached -s benches/load/post.lua "$URL/v1/render"
  before="$(hits)"
  export SALT="round $round: "
  run render-uncached -s benches/load/post-unique.lua "$URL/v1/render"
  echo "cache hits during the uncached run: $(( $(hits) - before ))"
  ratios="$(awk -v h="${RPS[healthz]}" -v c="${RPS[render-cached]}" -v u="${RPS[render-uncached]}" \
    'BEGIN { printf "%.1f %.1f", 100*c/h, 100*u/h }')"
  read -r cached uncached <<<"$ratios"
  CACHED_RATIOS+=("$cached")
  UNCACHED_RATIOS+=("$uncached")
  printf 'cached/healthz %.0f%%   uncached/healthz %.0f%%\n' "$cached" "$uncached"
done
if [ "$ROUNDS" -gt 1 ]; then
  median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
  printf 'median of %d rounds: cached/healthz %.0f%%   uncached/healthz %.0f%%\n' \
    "$ROUNDS" "$(median "${CACHED_RATIOS[@]}")" "$(median "${UNCACHED_RATIOS[@]}")"
fi
