# Sourced by the timing scripts: `best DIGITS command...` prints the best wall time in seconds
# of `$runs` runs of the command (its output discarded), with DIGITS decimals.
best() {
  local digits=$1 b=""
  shift
  for _ in $(seq "$runs"); do
    local s e t
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    t=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
    if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
  done
  printf "%.${digits}f" "$b"
}
