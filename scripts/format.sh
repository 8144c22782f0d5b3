#!/usr/bin/env bash
# format.sh -- the project's formatters: clang-format (.clang-format) on the C
# sources and headers, Prettier (.prettierrc.json, pinned in package.json) on
# the JavaScript. `scripts/format.sh` rewrites in place; `--check` lists the
# files that differ and exits 1 when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t c_files < <(git ls-files 'src/*.c' 'src/*.h' 'include/*.h' 'native-tests/*.c' 'native-tests/*.h' \
  'bench/*.c' 'bench/*.h' 'examples/*.c' 'fuzz/*.c' 'fuzz/*.h')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in "${c_files[@]}"; do
    if ! clang-format --style=file "$f" | cmp -s - "$f"; then echo "clang-format: $f"; bad=1; fi
  done
  npx prettier --list-different . || bad=1
  exit "$bad"
fi
clang-format --style=file -i "${c_files[@]}"
npx prettier --write . > /dev/null
