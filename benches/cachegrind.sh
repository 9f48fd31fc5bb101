# Sourced by benches/render-instructions.sh and benches/pathological-instructions.sh, from the
# repository's root. `start_counting NAME` stops the script NAME with a hint when valgrind is
# missing, builds the release `profile` example, and sets BIN and WORK (a temporary folder,
# removed when the script exits). `total RUNS ARGS…` is then the instructions of the whole
# `profile RUNS ARGS…` process under cachegrind; it leaves profile's output (which starts with
# the bytes read in) in $WORK/out.
start_counting() {
  command -v valgrind >/dev/null || { echo "$1: valgrind is not installed (apt-get install -y valgrind)" >&2; exit 1; }
  cargo build --release -q -p passback-benches --example profile
  BIN="${CARGO_TARGET_DIR:-target}/release/examples/profile"
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
}

total() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$WORK/cachegrind" \
    "$BIN" "$@" >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
  awk '/^summary:/ {print $2}' "$WORK/cachegrind"
}
