#!/usr/bin/env bash
# Load test of routed documents with wrk, on loopback: how many readers' submissions per second
# (POST /r/{id}/responses with a JSON answer, each one committed before its 201) the server
# stores on SQLite and on PostgreSQL, beside /healthz and an uncached render in the same run.
#
#   benches/routed-load.sh [SECONDS] [CONNECTIONS] [DOCUMENTS]
#       (defaults: 5 s per scenario, 32 connections, submissions spread over 32 documents)
#
# Each store is measured twice: every submission to one document (on PostgreSQL they take turns
# on its row), then spread over DOCUMENTS documents. The servers take up to
# 10,000,000 responses per document (--max-responses), so no run meets the limit; a run that
# got any answer but 201 says so. Afterwards each document's stored responses are counted
# through the API (GET /v1/documents/{id}) and compared with wrk's count of answered requests.
#
# PostgreSQL is found through PASSBACK_TEST_POSTGRES (default
# postgres://postgres@127.0.0.1:5432/test), as the store's tests do; the script makes a schema
# of its own with psql and drops it at the end. PASSBACK_TEST_POSTGRES=off skips PostgreSQL.
# The SQLite file goes in a temporary folder ($TMPDIR), removed at the end.
#
# Needs wrk (Debian: apt-get install -y wrk) and curl. Builds the release binary first (or runs
# PASSBACK_BIN). It only loads servers it starts on 127.0.0.1: at most 6 scenarios of SECONDS
# (at most 60) each, with at most 256 connections, into stores made for the run.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-5}"
CONNECTIONS="${2:-32}"
DOCUMENTS="${3:-32}"
MAX_RESPONSES=10000000
[[ "$DURATION" =~ ^[0-9]+$ && "$DURATION" -ge 1 && "$DURATION" -le 60 ]] ||
  { echo "routed-load.sh: SECONDS must be 1 to 60" >&2; exit 2; }
[[ "$CONNECTIONS" =~ ^[0-9]+$ && "$CONNECTIONS" -ge 1 && "$CONNECTIONS" -le 256 ]] ||
  { echo "routed-load.sh: CONNECTIONS must be 1 to 256" >&2; exit 2; }
[[ "$DOCUMENTS" =~ ^[0-9]+$ && "$DOCUMENTS" -ge 1 && "$DOCUMENTS" -le 1000 ]] ||
  { echo "routed-load.sh: DOCUMENTS must be 1 to 1000" >&2; exit 2; }
PG="${PASSBACK_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/test}"
source benches/server.sh
need_wrk routed-load.sh
command -v curl >/dev/null || { echo "routed-load.sh: curl is not installed" >&2; exit 1; }
if [ -n "${PASSBACK_BIN:-}" ]; then
  BIN="$PASSBACK_BIN" # a binary built already (the figures are for release builds)
else
  cargo build --release -q -p passback-server
  BIN="${CARGO_TARGET_DIR:-target}/release/passback"
fi
export DOC="benches/load/doc-2k.md"

WORK="$(mktemp -d)"
PIDS=()
SCHEMA=""
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "$SCHEMA" ] && psql "$PG" -qAtc "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# `serve NAME ARGS...`: starts `passback serve` on a free loopback port; sets URL.
serve() {
  local name="$1"
  shift
  # The load comes from one address: the per-link answer limits would measure only themselves.
  "$BIN" serve --listen 127.0.0.1:0 --max-responses "$MAX_RESPONSES" \
    --answer-limit off --document-answer-limit off "$@" >"$WORK/$name.out" 2>/dev/null &
  PIDS+=($!)
  URL=""
  for _ in $(seq 100); do
    URL="$(sed -n 's/.*listening on //p' "$WORK/$name.out")"
    [ -n "$URL" ] && return 0
    kill -0 "${PIDS[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "routed-load.sh: passback serve ($name) did not start" >&2
  exit 1
}

# `route URL N`: routes the load document N times; prints "id token" lines.
route() {
  for _ in $(seq "$2"); do
    curl -sf -X POST -H 'content-type: text/markdown' --data-binary @"$DOC" "$1/v1/documents" |
      sed -n 's/.*"id":"\([^"]*\)".*"token":"\([^"]*\)".*/\1 \2\n/p' | head -n 1
  done
}

# `stored URL DOCS`: the responses the documents ("id token" lines) hold, summed.
stored() {
  local total=0 id token n
  while read -r id token; do
    n="$(curl -sf -H "authorization: Bearer $token" "$1/v1/documents/$id" | sed -n 's/.*"responses":\([0-9]*\).*/\1/p')"
    total=$((total + n))
  done <<<"$2"
  echo "$total"
}

declare -A RPS SENT # requests/s and requests sent, by scenario
ROWS=()
# `run NAME URL [wrk arguments]`: one scenario; prints its line and keeps its req/s.
run() {
  local name="$1" url="$2"
  shift 2
  local report rps p50 p99 sent bad
  report="$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@" "$url")"
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$report")"
  p50="$(awk '$1=="50%" {print $2}' <<<"$report")"
  p99="$(awk '$1=="99%" {print $2}' <<<"$report")"
  sent="$(awk '/requests in/ {print $1}' <<<"$report")"
  bad="$(awk '/Non-2xx or 3xx responses/ {print $NF}' <<<"$report")"
  RPS[$name]="$rps"
  SENT[$name]="$sent"
  ROWS+=("$name|$rps|$p50|$p99|${bad:-0}")
  printf '  %-36s %10s req/s  p50 %-9s p99 %-9s %s\n' "$name" "$rps" "$p50" "$p99" \
    "$([ -n "$bad" ] && echo "$bad answers not 2xx" || true)"
}

echo "passback routed load test: $(nproc) cores, ${DURATION}s per scenario, $CONNECTIONS connections, answers spread over 1 and $DOCUMENTS documents"

# SQLite: also the server for /healthz and the uncached render.
serve sqlite --store "sqlite:$WORK/routed.db"
SQLITE_URL="$URL"
curl -sf -o /dev/null "$SQLITE_URL/healthz"
run "healthz" "$SQLITE_URL/healthz"
export SALT="routed-load $$: "
run "render, uncached (2 KB)" "$SQLITE_URL/v1/render" -s benches/load/post-unique.lua
CHECKS=()
measure() { # store label, base URL
  local label="$1" url="$2" one many
  one="$(route "$url" 1)"
  many="$(route "$url" "$DOCUMENTS")"
  [ -n "$one" ] && [ "$(wc -l <<<"$many")" -eq "$DOCUMENTS" ] || { echo "routed-load.sh: routing on $label failed" >&2; exit 1; }
  IDS="$(cut -d' ' -f1 <<<"$one")" run "submit, $label, 1 document" "$url" -s benches/load/submit.lua
  IDS="$(cut -d' ' -f1 <<<"$many" | tr '\n' ' ')" run "submit, $label, $DOCUMENTS documents" "$url" -s benches/load/submit.lua
  local kept counted
  kept=$(( $(stored "$url" "$one") + $(stored "$url" "$many") ))
  counted=$(( ${SENT["submit, $label, 1 document"]} + ${SENT["submit, $label, $DOCUMENTS documents"]} ))
  # wrk counts the answers that came back within the time; up to one request per connection
  # was still on its way at the end of each scenario, and may have been stored too.
  if [ "$kept" -ge "$counted" ] && [ "$kept" -le $((counted + 2 * CONNECTIONS)) ]; then
    CHECKS+=("$label: $kept responses stored for $counted answered within the time: every answered submission was kept")
  else
    CHECKS+=("$label: MISMATCH: $kept responses stored for $counted answered within the time")
  fi
}
measure SQLite "$SQLITE_URL"

if [ "$PG" = off ]; then
  echo "  PASSBACK_TEST_POSTGRES=off: PostgreSQL skipped"
elif ! command -v psql >/dev/null || ! psql "$PG" -qAtc 'SELECT 1' >/dev/null 2>&1; then
  echo "  PostgreSQL at $PG does not answer (psql): skipped; set PASSBACK_TEST_POSTGRES" >&2
else
  SCHEMA="passback_load_$$"
  psql "$PG" -qAtc "CREATE SCHEMA $SCHEMA" >/dev/null
  join='?'
  [[ "$PG" == *\?* ]] && join='&'
  serve postgres --store "${PG}${join}options=-csearch_path%3D${SCHEMA}"
  measure PostgreSQL "$URL"
fi

echo
echo "| scenario | req/s | p50 | p99 | share of /healthz |"
echo "|---|---:|---:|---:|---:|"
for row in "${ROWS[@]}"; do
  IFS='|' read -r name rps p50 p99 bad <<<"$row"
  share="$(awk -v r="$rps" -v h="${RPS[healthz]}" 'BEGIN { printf "%.1f%%", 100 * r / h }')"
  [ "$bad" != 0 ] && name="$name ($bad not 2xx)"
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$(printf "%'.0f" "$rps")" "$p50" "$p99" "$share"
done
echo
printf '%s\n' "${CHECKS[@]}"
