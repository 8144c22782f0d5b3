#!/bin/bash
# hostile_bench.sh -- by hand, not in the tests: CPU seconds (user+sys) of
# every command on issue 21's hostile inputs, natively.
#   bench/hostile_bench.sh MEMPLAN [DIR]
# DIR holds bench/hostile_models.py's files (written there if missing).
# Prints: file, command, exit code, CPU s, wall s, max RSS (MB), plus the
# load average at the start. Output goes to /dev/null (the JSON forms too,
# with --json: the page reads JSON).
set -u
exe=$1
dir=${2:-/tmp/memplan-hostile}
here=$(cd "$(dirname "$0")" && pwd)
[ -e "$dir/split_200k.onnx" ] || /usr/bin/python3 "$here/hostile_models.py" "$dir" >/dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %-22s %3s %7s %7s %7s\n' file command rc cpu_s wall_s rss_mb
run() { # file, then the command's arguments with @ for the file
  local f=$1; shift
  local args=() a
  for a in "$@"; do [ "$a" = @ ] && args+=("$dir/$f") || args+=("$a"); done
  local t; t=$(mktemp)
  /usr/bin/time -f '%U %S %e %M' -o "$t" "$exe" "${args[@]}" >/dev/null 2>&1
  local rc=$?
  read -r u s e m < <(tail -n 1 "$t"); rm -f "$t"
  local shown="${*//@/}"
  printf '%-28s %-22s %3s %7.2f %7.2f %7.0f\n' "$f" "${shown//  / }" "$rc" "$(echo "$u + $s" | bc)" "$e" "$(echo "$m / 1024" | bc)"
}
models="inplace_arity_8000 repeated_input_200k repeated_graph_400k split_200k fan_in_100k fan_out_100k chain_100k"
for m in ${ONLY:-$models}; do
  f=$m.onnx
  run "$f" info @
  run "$f" shapes @
  run "$f" plan @
  run "$f" plan @ --json
  run "$f" plan @ --strategy slots
  run "$f" plan @ --inplace
  run "$f" inplace @
  run "$f" profile @
  run "$f" tags @
  run "$f" annotate @ -o "/tmp/memplan-hostile-out.onnx"
done
rm -f /tmp/memplan-hostile-out.onnx
