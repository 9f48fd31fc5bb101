# Sourced by benches/load.sh, benches/soak.sh and scripts/schemathesis. `start_server PROFILE
# [ARGS...]` builds the server with that cargo profile (release, dev), starts `passback serve` on
# a free loopback port with ARGS, and sets PID, URL and OUT (a temporary file; it and OUT.* go,
# with the server, when the script exits).
start_server() {
  local profile="$1"
  shift
  local dir="$profile"
  [ "$profile" = dev ] && dir=debug
  cargo build --profile "$profile" -q -p passback-server
  OUT="$(mktemp)"
  "${CARGO_TARGET_DIR:-target}/$dir/passback" serve --listen 127.0.0.1:0 "$@" >"$OUT" 2>/dev/null &
  PID=$!
  trap 'kill "$PID" 2>/dev/null || true; rm -f "$OUT" "$OUT".*' EXIT
  for _ in $(seq 50); do grep -q listening "$OUT" && break; sleep 0.1; done
  URL="$(sed -n 's/.*listening on //p' "$OUT")"
}

# `need_wrk NAME`: stops the script NAME with a hint when wrk is missing.
need_wrk() {
  command -v wrk >/dev/null || { echo "$1: wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
}
