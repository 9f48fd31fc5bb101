#!/usr/bin/env bash
# Hostile load: CONCURRENCY clients at once, each posting a worst-case document of about 1 MB
# to /v1/render or /v1/validate, for ROUNDS rounds, against `passback serve` with its default
# configuration. The documents (written by benches/load/hostile.py): a table GFM would fill
# out to 300 columns, Mermaid `&` groups that multiply into 344,569 edges per fence, a
# million nested block quotes, and 12,000 component fences; each request varies its document
# so none is a cache hit. Meanwhile /healthz is polled every 0.2 s.
#
# Reports every status code seen (000 is a reset or no answer), the server's peak RSS, and the
# slowest /healthz. Fails when a request got anything but 200, 413, 422 or 503, when the peak
# RSS reaches HOSTILE_MAX_RSS_MIB (default 1024), or when /healthz took a second or more.
#
#   benches/hostile-load.sh [ROUNDS] [CONCURRENCY]     (defaults: 3 rounds, 64 clients)
#
# Needs curl and python3. Builds the release binary first (HOSTILE_PROFILE=dev for a debug one).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-3}"
CONCURRENCY="${2:-64}"
MAX_RSS_MIB="${HOSTILE_MAX_RSS_MIB:-1024}"
source benches/server.sh
start_server "${HOSTILE_PROFILE:-release}" --store off
DOCS="$(mktemp -d)"
trap 'kill "$PID" 2>/dev/null || true; rm -rf "$OUT" "$OUT".* "$DOCS"' EXIT
python3 benches/load/hostile.py "$DOCS"
KINDS=(table mermaid quotes fences)

echo "passback hostile load: $(nproc) cores, $ROUNDS round(s) of $CONCURRENCY concurrent ~1 MB documents"
for k in "${KINDS[@]}"; do printf '  %-8s %8d bytes\n' "$k" "$(wc -c <"$DOCS/$k.md")"; done

# /healthz, polled in the background: its slowest answer, in seconds.
( while :; do curl -s -o /dev/null -m 10 -w '%{http_code} %{time_total}\n' "$URL/healthz" || echo "000 10"; sleep 0.2; done ) >"$OUT.healthz" &
POLL=$!

: >"$OUT.codes"
start=$(date +%s.%N)
for round in $(seq "$ROUNDS"); do
  clients=()
  for i in $(seq 0 $((CONCURRENCY - 1))); do
    kind="${KINDS[$((i % 4))]}"
    path=/v1/render
    [ $((i / 4 % 2)) = 1 ] && path=/v1/validate
    # A unique last line, so no request is a cache hit.
    ( { cat "$DOCS/$kind.md"; printf '\n\nround %s request %s\n' "$round" "$i"; } |
        curl -s -o /dev/null -m 120 -w "%{http_code} $kind $path\n" \
          -H 'content-type: text/markdown' --data-binary @- "$URL$path" || echo "000 $kind $path"
    ) >>"$OUT.codes" &
    clients+=("$!")
  done
  wait "${clients[@]}"
done
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
kill "$POLL" 2>/dev/null || true
wait "$POLL" 2>/dev/null || true

echo "requests: $(wc -l <"$OUT.codes") in ${elapsed%.*} s"
echo "status codes by document:"
sort "$OUT.codes" | uniq -c | sed 's/^/  /'
peak_kib="$(awk '/^VmHWM/ {print $2}' "/proc/$PID/status")"
echo "peak RSS: $((peak_kib / 1024)) MiB"
slowest="$(awk '{ if ($2 > m) m = $2 } END { printf "%.3f", m }' "$OUT.healthz")"
polls="$(wc -l <"$OUT.healthz")"
bad_polls="$(awk '$1 != 200' "$OUT.healthz" | wc -l)"
echo "/healthz: $polls polls, slowest ${slowest} s, $bad_polls not 200"
curl -s "$URL/metrics" | grep -E '^passback_(requests_shed|connections_rejected|log_lines_dropped)_total' | sed 's/^/  /'

fail=0
if awk '$1 !~ /^(200|413|422|503)$/' "$OUT.codes" | grep -q .; then
  echo "hostile-load.sh: some requests got another status (000: reset or no answer)" >&2; fail=1
fi
if [ "$((peak_kib / 1024))" -ge "$MAX_RSS_MIB" ]; then
  echo "hostile-load.sh: peak RSS reached ${MAX_RSS_MIB} MiB" >&2; fail=1
fi
if awk -v s="$slowest" 'BEGIN { exit !(s >= 1.0) }' || [ "$bad_polls" -gt 0 ]; then
  echo "hostile-load.sh: /healthz took a second or more, or failed" >&2; fail=1
fi
kill -0 "$PID" || { echo "hostile-load.sh: the server died" >&2; fail=1; }
exit "$fail"
