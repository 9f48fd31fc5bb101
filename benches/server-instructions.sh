#!/usr/bin/env bash
# Instructions `passback serve` spends per request, counted by cachegrind, for the load test's
# three scenarios (benches/load.sh): /healthz, a cached render and an uncached render of
# benches/load/doc-2k.md. Throughput on a shared 2-core VM scatters by several percent from one
# run to the next; instruction counts do not, so this is the check for a change to the work done
# per request (this VM has no hardware counters for `perf stat`).
#
# Each scenario runs the release server under valgrind twice, once sent no request and once
# sent REQUESTS requests one after another on a keep-alive connection (each uncached one a
# distinct document); the difference, divided by REQUESTS, is the count per request, with
# start-up and shutdown taken out. User-space instructions only: the kernel's share is not seen.
#
#   benches/server-instructions.sh [REQUESTS] [SCENARIO...]
#       (defaults: 1000 requests; healthz cached uncached)
#
# Needs valgrind and python3. Builds the release binary first; then a few seconds per scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS="${1:-1000}"
shift || true
SCENARIOS=("$@")
[ "${#SCENARIOS[@]}" -gt 0 ] || SCENARIOS=(healthz cached uncached)
for scenario in "${SCENARIOS[@]}"; do
  case "$scenario" in
    healthz | cached | uncached) ;;
    *) echo "server-instructions.sh: unknown scenario $scenario (healthz, cached, uncached)" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "server-instructions.sh: valgrind is not installed (apt-get install -y valgrind)" >&2; exit 1; }
cargo build --release -q -p passback-server
BIN="${CARGO_TARGET_DIR:-target}/release/passback"
DOC=benches/load/doc-2k.md
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# `client PORT COUNT SCENARIO`: COUNT requests, each checked for a 200.
client() {
  python3 - "$@" "$DOC" <<'EOF'
import http.client, sys
port, count, scenario, doc = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
body = open(doc, "rb").read()
conn = http.client.HTTPConnection("127.0.0.1", port)
for i in range(count):
    if scenario == "healthz":
        conn.request("GET", "/healthz")
    else:
        sent = body if scenario == "cached" else body + f"\n<!-- request {i} -->\n".encode()
        conn.request("POST", "/v1/render", body=sent, headers={"Content-Type": "text/markdown"})
    response = conn.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"request {i} of {scenario}: status {response.status}")
EOF
}

# `instructions COUNT SCENARIO`: the server's total instructions for one run.
instructions() {
  local out="$WORK/out" counts="$WORK/cachegrind"
  : >"$out"
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$counts" \
    "$BIN" serve --listen 127.0.0.1:0 >"$out" 2>/dev/null &
  local pid=$!
  for _ in $(seq 600); do grep -q listening "$out" && break; sleep 0.1; done
  local port
  port="$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1://p' "$out")"
  [ -n "$port" ] || { echo "server-instructions.sh: the server did not start" >&2; kill "$pid"; exit 1; }
  # One cached render first in both runs, so the cached scenario's first request is a hit too.
  client "$port" 1 cached
  [ "$1" -gt 0 ] && client "$port" "$1" "$2"
  kill -INT "$pid"
  wait "$pid" || true
  awk '/^summary:/ {print $2}' "$counts"
}

echo "passback serve under cachegrind: $REQUESTS requests per scenario, document $(wc -c <"$DOC") bytes"
for scenario in "${SCENARIOS[@]}"; do
  idle="$(instructions 0 "$scenario")"
  busy="$(instructions "$REQUESTS" "$scenario")"
  awk -v s="$scenario" -v a="$idle" -v b="$busy" -v n="$REQUESTS" \
    'BEGIN { printf "%-9s %8.1f k instructions per request\n", s, (b - a) / n / 1000 }'
done
