#!/usr/bin/env bash
# Soak test: `passback serve` under a mixed, never-cached load (benches/load/soak.lua) for
# SECONDS, sampling the server's resident memory every 5 s. Memory must level off once the
# render cache and the diagram store are full: the script reports the growth from the first
# sample after warm-up (10 s) to the end (the lowest of the last three samples), and fails if it is over SOAK_MAX_GROWTH percent
# (default 10) or any request failed. A leak of even 100 bytes a request would show as several
# times that at these request rates.
#
#   benches/soak.sh [SECONDS] [CACHE_BYTES]     (defaults: 60 s, 8 MiB so the cache fills fast)
#
# Needs wrk (Debian: apt-get install -y wrk). Builds the release binary first.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-60}"
CACHE_BYTES="${2:-8388608}"
source benches/server.sh
need_wrk soak.sh
start_server release --cache-bytes "$CACHE_BYTES"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$PID/status"; }
cache_kib() { curl -sf "$URL/metrics" | awk '/^passback_cache_bytes / {printf "%d", $2 / 1024}'; }

echo "passback soak: $(nproc) cores, ${DURATION}s, 32 connections, --cache-bytes $CACHE_BYTES"
echo "rss at start: $(rss) KiB"
DOC=benches/load/doc-2k.md wrk -t1 -c32 -d"${DURATION}s" -s benches/load/soak.lua "$URL" >"$OUT.wrk" &
WRK=$!
: >"$OUT.rss"
elapsed=0
while kill -0 "$WRK" 2>/dev/null && [ "$elapsed" -lt "$DURATION" ]; do
  sleep 5
  elapsed=$((elapsed + 5))
  kb="$(rss)"
  echo "$elapsed $kb" >>"$OUT.rss"
  printf 'rss at %3ss: %s KiB (render cache holds %s KiB)\n' "$elapsed" "$kb" "$(cache_kib)"
done
wait "$WRK"
grep -E "Requests/sec|requests in|Non-2xx|Socket errors" "$OUT.wrk" || true
kill -0 "$PID" || { echo "soak.sh: the server died" >&2; exit 1; }
# The end is the lowest of the last three samples: glibc's arenas spike by a few MiB for a
# sample now and then and give it back (seen: 24 → 28 → 24 MiB), while a leak raises every
# sample, the lowest included.
awk -v limit="${SOAK_MAX_GROWTH:-10}" 'NR == 1 || $1 == 10 {first = $2}
  {s3 = s2; s2 = s1; s1 = $2; if ($2 > max) max = $2}
  END {
    last = s1
    if (s2 != "" && s2 < last) last = s2
    if (s3 != "" && s3 < last) last = s3
    growth = 100 * (last - first) / first
    printf "rss after warm-up %d KiB, at the end (lowest of the last three samples) %d KiB, peak %d KiB: growth %.1f%%\n", first, last, max, growth
    exit (growth > limit)
  }' "$OUT.rss" || { echo "soak.sh: memory grew by more than ${SOAK_MAX_GROWTH:-10}% after warm-up" >&2; exit 1; }
if grep -q "Non-2xx" "$OUT.wrk"; then echo "soak.sh: some requests failed" >&2; exit 1; fi
