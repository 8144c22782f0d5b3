#!/usr/bin/env bash
# test.sh -- everything `make test` runs, from a fresh clone on a fresh machine:
#   setup (Debian packages, protobuf-c source, npm ci), native Release build
#   (build/native), native ASan+UBSan build (build/asan), WASM build
#   (build/wasm), generated fixtures (build/fixtures, if scripts/gen_fixtures.py
#   exists), ctest in both native builds, a valgrind sample, each libFuzzer
#   target for 20 s (build/fuzz), Vitest (wasm-tests/), the web build
#   and the browser tests. A failing phase does not stop independent ones; the
#   exit status is non-zero if any phase failed. Ends with a timing table and
#   one line "total: N passed, N failed" summing the test runners' counts.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export NODE_PATH=/usr/share/nodejs   # Debian's emcc runs acorn-optimizer with the system node
JOBS=$(nproc 2>/dev/null || echo 2)
LOGDIR="$ROOT/build/test-logs"

declare -a SUMMARY=()
declare -A STATUS=()
PASSED=0
FAILED=0

# phase NAME DEPENDENCY... -- CMD...: run CMD unless a dependency failed.
phase() {
  local name=$1; shift
  local deps=()
  while [ "$1" != "--" ]; do deps+=("$1"); shift; done
  shift
  for d in "${deps[@]}"; do
    if [ "${STATUS[$d]:-}" != ok ]; then
      STATUS[$name]=skipped
      SUMMARY+=("$(printf '%-14s %-8s %7s  (needs %s)' "$name" skipped - "$d")")
      echo "=== $name: skipped (needs $d)"
      FAILED=$((FAILED + 1))
      return
    fi
  done
  echo "=== $name: $*"
  local log="$LOGDIR/$name.log" t0=$SECONDS rc
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  local dt=$((SECONDS - t0))
  if [ "$rc" = 0 ]; then STATUS[$name]=ok; else STATUS[$name]=failed; fi
  SUMMARY+=("$(printf '%-14s %-8s %6ss' "$name" "${STATUS[$name]}" "$dt")")
  count_tests "$log" "$rc"
  echo "=== $name: ${STATUS[$name]} in ${dt}s"
}

# Add the counts a runner printed to the totals; a failed phase that printed
# no counts (a build, a crash) counts as one failure.
count_tests() {
  local log=$1 rc=$2 p="" f=""
  local line
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n1)   # ctest
  if [ -n "$line" ]; then
    local total
    f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
    total=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<<"$line")
    p=$((total - f))
  else
    line=$(grep -E '^(vitest|browser): [0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
    if [ -n "$line" ]; then
      p=$(sed -E 's/^[a-z]+: ([0-9]+) passed.*/\1/' <<<"$line")
      f=$(sed -E 's/^[a-z]+: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
    fi
  fi
  if [ -n "$p" ]; then
    PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then FAILED=$((FAILED + 1)); fi
  elif [ "$rc" != 0 ]; then
    FAILED=$((FAILED + 1))
  fi
}

build_native() {
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release && cmake --build build/native -j"$JOBS"
}
build_asan() {
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DMEMPLAN_SANITIZE=ON && cmake --build build/asan -j"$JOBS"
}
build_wasm() {
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release && cmake --build build/wasm -j"$JOBS"
}
gen_fixtures() {
  if [ ! -f scripts/gen_fixtures.py ]; then
    echo "no scripts/gen_fixtures.py: nothing to generate"
    return 0
  fi
  rm -rf build/fixtures && mkdir -p build/fixtures &&
    /usr/bin/python3 scripts/gen_fixtures.py build/fixtures || return 1
  # The native tests look in <build dir>/fixtures: point both at the one set.
  local d
  for d in build/native build/asan; do
    if [ -d "$d" ] && [ ! -e "$d/fixtures" ]; then ln -s ../fixtures "$d/fixtures"; fi
  done
  echo "fixtures: $(find build/fixtures -name '*.onnx' | wc -l) models in build/fixtures"
}
ctest_in() {
  # The valgrind sample has its own phase (slow; the Release build only).
  ctest --test-dir "$1" --output-on-failure -j"$JOBS" -LE valgrind
}
valgrind_sample() {
  ctest --test-dir build/native --output-on-failure -L valgrind
}
fuzz_brief() {
  # Each libFuzzer target for 20 s (scripts/fuzz.sh; `make fuzz` runs 300 s each).
  FUZZ_SECONDS=${FUZZ_SECONDS:-20} bash scripts/fuzz.sh
}
vitest() {
  MEMPLAN_CLI="$ROOT/build/native/memplan" MEMPLAN_WASM_DIR="$ROOT/build/wasm" npm run --silent test:wasm
}
build_web() {
  MEMPLAN_WASM_DIR="$ROOT/build/wasm" npm run --silent build:web
}
browser() {
  MEMPLAN_CLI="$ROOT/build/native/memplan" npm run --silent test:browser
}

T0=$SECONDS
mkdir -p "$LOGDIR"
phase setup -- bash scripts/setup.sh
if [ "${STATUS[setup]}" != ok ]; then
  echo "make test: setup failed; nothing else can run" >&2
  echo "total: 0 passed, 1 failed"
  exit 1
fi
phase build-native setup -- build_native
phase build-asan setup -- build_asan
phase build-wasm setup -- build_wasm
phase fixtures setup -- gen_fixtures
phase ctest-native build-native fixtures -- ctest_in build/native
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
phase ctest-asan build-asan fixtures -- ctest_in build/asan
unset ASAN_OPTIONS UBSAN_OPTIONS
phase valgrind build-native fixtures -- valgrind_sample
phase fuzz setup fixtures -- fuzz_brief
phase vitest build-native build-wasm fixtures -- vitest
phase build-web build-wasm -- build_web
phase browser build-web build-native -- browser

echo
echo "=== make test summary (logs in build/test-logs/)"
printf '%s\n' "${SUMMARY[@]}"
printf '%-14s %-8s %6ss\n' all "" $((SECONDS - T0))
rc=0
for name in "${!STATUS[@]}"; do
  if [ "${STATUS[$name]}" != ok ]; then rc=1; fi
done
echo "total: $PASSED passed, $FAILED failed"
exit $rc
