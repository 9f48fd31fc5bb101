# Sourced by load.sh and soak.sh. `start_server NAME [ARGS...]` checks for wrk, builds the
# release binary, starts `passback serve` on a free loopback port with ARGS, and sets PID, URL
# and OUT (a temporary file; it and OUT.* go, with the server, when the script exits).
start_server() {
  local name="$1"
  shift
  command -v wrk >/dev/null || { echo "$name: wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
  cargo build --release -q -p passback-server
  OUT="$(mktemp)"
  "${CARGO_TARGET_DIR:-target}/release/passback" serve --listen 127.0.0.1:0 "$@" >"$OUT" 2>/dev/null &
  PID=$!
  trap 'kill "$PID" 2>/dev/null || true; rm -f "$OUT" "$OUT".*' EXIT
  for _ in $(seq 50); do grep -q listening "$OUT" && break; sleep 0.1; done
  URL="$(sed -n 's/.*listening on //p' "$OUT")"
}
