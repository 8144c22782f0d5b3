#!/usr/bin/env bash
# test.sh -- everything `make test` runs, from a fresh clone on a fresh machine:
#   setup (Debian packages, protobuf-c source, npm ci), native Release build
#   (build/native), native ASan+UBSan build (build/asan), WASM build
#   (build/wasm), generated fixtures (build/fixtures, if scripts/gen_fixtures.py
#   exists), ctest in both native builds, a valgrind sample, each libFuzzer
#   target for 20 s (build/fuzz), Vitest (wasm-tests/), the web build,
#   the browser tests and the npm package's check (scripts/npm_check.mjs:
#   packed, installed into a fresh folder, used as README says). A failing
#   phase does not stop independent ones; the exit status is non-zero if any phase failed or any test was skipped. Ends
#   with a timing table and one line "total: N passed, N failed, N skipped"
#   summing the test runners' own JUnit reports (build/test-logs/PHASE.junit.xml,
#   scripts/junit_sum.py).
#
# test.sh --check (`make check`): the fast loop. The Release and WASM builds,
#   the ctest tests labelled quick (native-tests/CMakeLists.txt) and the Vitest
#   files outside VITEST_SLOW (24 s warm on 2 quiet cores). Setup runs only
#   when its tools are missing (a new machine).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export NODE_PATH=/usr/share/nodejs   # Debian's emcc runs acorn-optimizer with the system node
JOBS=$(nproc 2>/dev/null || echo 2)
LOGDIR="$ROOT/build/test-logs"

MODE=test
if [ "${1:-}" = --check ]; then MODE=check; fi
# The Vitest files `make check` leaves out: sweeps over every libonnx-testdata
# model, every damaged copy of the malformed suite's models, and every npm and
# generated model under ten option sets, a 2 GiB annotate on a fresh module, and
# the npm models run by ONNX Runtime (~40 s).
VITEST_SLOW=(wasm-tests/annotate-large.test.js wasm-tests/equality-testdata-0.test.js wasm-tests/equality-testdata-1.test.js
             wasm-tests/malformed.test.js wasm-tests/report-equality.test.js wasm-tests/ort-shapes.test.js)

declare -a SUMMARY=()
declare -A STATUS=()
PASSED=0
FAILED=0
SKIPPED=0

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
  # A runner writes its report to $MEMPLAN_JUNIT; never count an earlier run's.
  export MEMPLAN_JUNIT="$LOGDIR/$name.junit.xml"
  rm -f "$MEMPLAN_JUNIT"
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  local dt=$((SECONDS - t0))
  if [ "$rc" = 0 ]; then STATUS[$name]=ok; else STATUS[$name]=failed; fi
  SUMMARY+=("$(printf '%-14s %-8s %6ss' "$name" "${STATUS[$name]}" "$dt")")
  count_tests "$name" "$rc"
  echo "=== $name: ${STATUS[$name]} in ${dt}s"
}

# Add the counts of the phase's JUnit report to the totals. A failed phase
# without a report (a build, a crash) counts as one failure, and so does a
# failed phase whose report shows no failure.
count_tests() {
  local name=$1 rc=$2 counts p="" f="" s=0 line
  if [ -f "$LOGDIR/$name.junit.xml" ] && counts=$(/usr/bin/python3 scripts/junit_sum.py "$LOGDIR/$name.junit.xml"); then
    read -r p f s <<<"$counts"
  elif [ "$name" = browser ]; then
    # Until the browser tests run on a runner that writes browser.junit.xml:
    # the line their script prints.
    line=$(grep -E '^browser: [0-9]+ passed, [0-9]+ failed' "$LOGDIR/$name.log" | tail -n1)
    if [ -n "$line" ]; then
      p=$(sed -E 's/^browser: ([0-9]+) passed.*/\1/' <<<"$line")
      f=$(sed -E 's/^browser: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
    fi
  fi
  if [ -n "$p" ]; then
    PASSED=$((PASSED + p)); FAILED=$((FAILED + f)); SKIPPED=$((SKIPPED + s))
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then FAILED=$((FAILED + 1)); fi
  elif [ "$rc" != 0 ]; then
    FAILED=$((FAILED + 1))
  fi
}

build_native() {
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release && cmake --build build/native -j"$JOBS"
}
# `make check`: configure only a build dir that is not configured yet (or not
# as asked); `cmake --build` re-runs the configure step itself when a
# CMakeLists.txt changed. Saves ~5 s per build dir on a warm loop.
configured() {
  # A configure that failed half-way leaves a cache without a Makefile.
  [ -f "$1/Makefile" ] && grep -q "^$2\$" "$1/CMakeCache.txt" 2>/dev/null
}
build_native_warm() {
  if configured build/native CMAKE_BUILD_TYPE:STRING=Release; then cmake --build build/native -j"$JOBS"; else build_native; fi
}
build_wasm_warm() {
  if configured build/wasm CMAKE_BUILD_TYPE:STRING=Release; then cmake --build build/wasm -j"$JOBS"; else build_wasm; fi
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
  ctest --test-dir "$1" --output-on-failure -j"$JOBS" -LE valgrind --output-junit "$MEMPLAN_JUNIT"
}
ctest_quick() {
  ctest --test-dir build/native --output-on-failure -j"$JOBS" -L quick --output-junit "$MEMPLAN_JUNIT"
}
valgrind_sample() {
  ctest --test-dir build/native --output-on-failure -L valgrind --output-junit "$MEMPLAN_JUNIT"
}
fuzz_brief() {
  # Each libFuzzer target for 20 s (scripts/fuzz.sh; `make fuzz` runs 300 s each).
  FUZZ_SECONDS=${FUZZ_SECONDS:-20} bash scripts/fuzz.sh
}
vitest() {
  MEMPLAN_CLI="$ROOT/build/native/memplan" MEMPLAN_WASM_DIR="$ROOT/build/wasm" npm run --silent test:wasm -- \
    --reporter=default --reporter=junit --outputFile.junit="$MEMPLAN_JUNIT" "$@"
}
vitest_quick() {
  local f files=() slow
  for f in wasm-tests/*.test.js; do
    slow=no
    for s in "${VITEST_SLOW[@]}"; do if [ "$f" = "$s" ]; then slow=yes; fi; done
    if [ "$slow" = no ]; then files+=("$f"); fi
  done
  vitest "${files[@]}"
}
build_web() {
  MEMPLAN_WASM_DIR="$ROOT/build/wasm" npm run --silent build:web
}
browser() {
  MEMPLAN_CLI="$ROOT/build/native/memplan" npm run --silent test:browser
}
npm_package() {
  # The npm package packed, installed from its tarball into a fresh folder and
  # used as README's quick starts say (scripts/npm_check.mjs).
  MEMPLAN_CLI="$ROOT/build/native/memplan" MEMPLAN_WASM_DIR="$ROOT/build/wasm" node scripts/npm_check.mjs
}

# Print the timing table and the totals; exit non-zero if a phase failed or a
# test was skipped (a skipped test is a test that did not run: CI fails on it).
finish() {
  echo
  echo "=== make $MODE summary (logs in build/test-logs/)"
  printf '%s\n' "${SUMMARY[@]}"
  printf '%-14s %-8s %6ss\n' all "" $((SECONDS - T0))
  local rc=0 name
  for name in "${!STATUS[@]}"; do
    if [ "${STATUS[$name]}" != ok ]; then rc=1; fi
  done
  if [ "$SKIPPED" != 0 ]; then
    echo "make $MODE: $SKIPPED test(s) skipped: a skip is a failure here"
    rc=1
  fi
  echo "total: $PASSED passed, $FAILED failed, $SKIPPED skipped"
  exit $rc
}

# setup_present: are the tools and sources `make check` builds with installed?
setup_present() {
  command -v emcmake >/dev/null && command -v protoc-c >/dev/null &&
    command -v chromium >/dev/null && [ -d node_modules ] &&
    [ -f .deps/protobuf-c/protobuf-c/protobuf-c.c ]
}

T0=$SECONDS
mkdir -p "$LOGDIR"
if [ "$MODE" = check ]; then
  # A new machine: install what the fast loop needs first (setup is idempotent;
  # skipped when the tools are there, so a worktree never re-runs npm ci).
  if ! setup_present; then phase setup -- bash scripts/setup.sh; fi
  phase build-native -- build_native_warm
  phase build-wasm -- build_wasm_warm
  phase fixtures build-native -- gen_fixtures
  phase ctest-quick build-native fixtures -- ctest_quick
  phase vitest-quick build-native build-wasm fixtures -- vitest_quick
  phase format -- bash scripts/format.sh --check
  finish
fi
phase setup -- bash scripts/setup.sh
if [ "${STATUS[setup]}" != ok ]; then
  echo "make test: setup failed; nothing else can run" >&2
  echo "total: 0 passed, 1 failed, 0 skipped"
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
phase npm-package build-native build-wasm fixtures -- npm_package
phase format setup -- bash scripts/format.sh --check
finish
