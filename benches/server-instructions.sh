#!/usr/bin/env bash
# Instructions `passback serve` spends per request, counted by cachegrind, for the load test's
# three scenarios (benches/load.sh): /healthz, a cached render and an uncached render of
# benches/load/doc-2k.md; and for a reader's submission (`submit`: the JSON answer of
# benches/load/submit.lua posted to a routed benches/load/doc-2k.md, each one stored in SQLite
# before its 201, as benches/routed-load.sh sends them). Throughput on a shared 2-core VM
# scatters by several percent from one run to the next; instruction counts do not, so this is
# the check for a change to the work done per request (this VM has no hardware counters for
# `perf stat`).
#
# Each scenario runs the release server under valgrind twice, once sent no request and once
# sent REQUESTS requests one after another on a keep-alive connection (each uncached one a
# distinct document); the difference, divided by REQUESTS, is the count per request, with
# start-up and shutdown taken out. User-space instructions only: the kernel's share is not seen.
#
#   benches/server-instructions.sh [REQUESTS] [SCENARIO...]
#       (defaults: 1000 requests; healthz cached uncached submit)
#
# Needs valgrind, python3 and curl. Builds the release binary first (or runs PASSBACK_BIN);
# then a few seconds per scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS="${1:-1000}"
shift || true
SCENARIOS=("$@")
[ "${#SCENARIOS[@]}" -gt 0 ] || SCENARIOS=(healthz cached uncached submit)
for scenario in "${SCENARIOS[@]}"; do
  case "$scenario" in
    healthz | cached | uncached | submit) ;;
    *) echo "server-instructions.sh: unknown scenario $scenario (healthz, cached, uncached, submit)" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "server-instructions.sh: valgrind is not installed (apt-get install -y valgrind)" >&2; exit 1; }
if [ -n "${PASSBACK_BIN:-}" ]; then
  BIN="$PASSBACK_BIN"
else
  cargo build --release -q -p passback-server
  BIN="${CARGO_TARGET_DIR:-target}/release/passback"
fi
DOC=benches/load/doc-2k.md
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# `client PORT COUNT SCENARIO [ID]`: COUNT requests, each checked for its 200 (201 for a
# submission to the routed document ID).
client() {
  python3 - "$1" "$2" "$3" "$DOC" "${4:-}" <<'EOF'
import http.client, json, sys
port, count, scenario, doc, routed = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
body = open(doc, "rb").read()
conn = http.client.HTTPConnection("127.0.0.1", port)
answer = json.dumps({
    "responses": {
        "b1": {"selected": ["Magic link"], "note": "under load"},
        "b2": {"order": ["us", "eu", "apac"]},
        "b3": {"weights": {"product": 50, "infra": 30, "support": 20}},
        "b4": {"text": "nothing"},
    },
    "reviewer": "cachegrind",
}).encode()
for i in range(count):
    if scenario == "healthz":
        conn.request("GET", "/healthz")
    elif scenario == "submit":
        conn.request("POST", f"/r/{routed}/responses", body=answer,
                     headers={"Content-Type": "application/json"})
    else:
        sent = body if scenario == "cached" else body + f"\n<!-- request {i} -->\n".encode()
        conn.request("POST", "/v1/render", body=sent, headers={"Content-Type": "text/markdown"})
    response = conn.getresponse()
    response.read()
    if response.status != (201 if scenario == "submit" else 200):
        sys.exit(f"request {i} of {scenario}: status {response.status}")
EOF
}

# `instructions COUNT SCENARIO`: the server's total instructions for one run.
instructions() {
  local out="$WORK/out" counts="$WORK/cachegrind"
  : >"$out"
  local store=()
  if [ "$2" = submit ]; then
    rm -f "$WORK/submit.db"*
    store=(--store "sqlite:$WORK/submit.db" --max-responses 10000000 --answer-limit off --document-answer-limit off)
  fi
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$counts" \
    "$BIN" serve --listen 127.0.0.1:0 "${store[@]}" >"$out" 2>/dev/null &
  local pid=$!
  for _ in $(seq 600); do grep -q listening "$out" && break; sleep 0.1; done
  local port
  port="$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1://p' "$out")"
  [ -n "$port" ] || { echo "server-instructions.sh: the server did not start" >&2; kill "$pid"; exit 1; }
  # One cached render first in both runs, so the cached scenario's first request is a hit too;
  # for submissions, the document routed and answered once in both runs.
  client "$port" 1 cached
  local routed=""
  if [ "$2" = submit ]; then
    routed="$(curl -sf -X POST -H 'content-type: text/markdown' --data-binary @"$DOC" \
      "http://127.0.0.1:$port/v1/documents" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')"
    [ -n "$routed" ] || { echo "server-instructions.sh: routing the document failed" >&2; kill "$pid"; exit 1; }
    client "$port" 1 submit "$routed"
  fi
  [ "$1" -gt 0 ] && client "$port" "$1" "$2" "$routed"
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
