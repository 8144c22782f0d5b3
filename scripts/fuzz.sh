#!/usr/bin/env bash
# fuzz.sh -- build the libFuzzer targets (fuzz/, clang, ASan+UBSan) into
# build/fuzz and run each for FUZZ_SECONDS (default 300).
#
#   FUZZ_SECONDS=N     seconds per target (make test uses 20)
#   FUZZ_TARGETS="..." subset of: load plan csv annotate session (default all)
#   FUZZ_JOBS=N        parallel fuzzing processes per target (default 1)
#
# Seeds are assembled at run time into build/fuzz/seeds/<target> (never
# committed): build/fixtures (+ bad/), every 25th libonnx-testdata model and
# the npm fixture models (scripts/list_fixtures.mjs) with tensor data stripped
# (scripts/fuzz_seeds.py), the models of scripts/gen_contrib_models.py (ONNX
# Runtime's contrib ops), the regression inputs (native-tests/regressions),
# and for csv ../shared/dsa-bench/*.csv. The growing corpus lives in
# build/fuzz/corpus/<target>. A crash, sanitizer report, leak, timeout (10 s
# per input) or out-of-memory (2 GB) leaves build/fuzz/crashes/<target>-* and
# makes this script exit 1; turn each into a regression input under
# native-tests/regressions/<target>/ and fix it. Ends with a table of
# executions and time per target.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_PER=${FUZZ_SECONDS:-300}
TARGETS=${FUZZ_TARGETS:-"load plan csv annotate session"}
JOBS=${FUZZ_JOBS:-1}
OUT=build/fuzz
TESTDATA=/usr/share/libonnx-testdata/data
DSA=${MEMPLAN_DSA_BENCH:-$ROOT/../shared/dsa-bench}
[ -d "$DSA" ] || DSA=/work/shared/dsa-bench

CC=${FUZZ_CC:-clang} cmake -S . -B "$OUT" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMPLAN_FUZZ=ON >/dev/null || exit 1
targets=()
for t in $TARGETS; do targets+=("fuzz_$t"); done
cmake --build "$OUT" -j"$(nproc)" --target "${targets[@]}" >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }

# Seeds.
if [ ! -f build/fixtures/chain.onnx ]; then
  mkdir -p build/fixtures && /usr/bin/python3 scripts/gen_fixtures.py build/fixtures >/dev/null || exit 1
fi
rm -rf "$OUT/seeds" "$OUT/contrib" && mkdir -p "$OUT/seeds/model" "$OUT/seeds/csv" "$OUT/crashes"
/usr/bin/python3 scripts/gen_contrib_models.py "$OUT/contrib" || exit 1
{
  ls build/fixtures/*.onnx build/fixtures/bad/* "$OUT"/contrib/*.onnx
  [ -d "$TESTDATA" ] && find "$TESTDATA" -name '*.onnx' | sort | awk 'NR % 25 == 1'
  node scripts/list_fixtures.mjs --unique 2>/dev/null
} | xargs /usr/bin/python3 scripts/fuzz_seeds.py "$OUT/seeds/model" --max-len 262144 || exit 1
cp "$DSA"/*.csv "$OUT/seeds/csv/" 2>/dev/null
printf 'id,lower,upper,size\na,0,1,0\nb,0,2,64\nc,1,3,9223372036854775807\n' >"$OUT/seeds/csv/tiny.csv"

declare -a ROWS=()
rc=0
for t in $TARGETS; do
  case $t in
    csv) seeds="$OUT/seeds/csv"; dict=fuzz/csv.dict; maxlen=65536 ;;
    *)   seeds="$OUT/seeds/model"; dict=fuzz/onnx.dict; maxlen=262144 ;;
  esac
  corpus="$OUT/corpus/$t"
  mkdir -p "$corpus"
  regs=()
  [ -d native-tests/regressions/$t ] && regs=(native-tests/regressions/$t)
  log="$OUT/fuzz_$t.log"
  echo "=== fuzz_$t: ${SECONDS_PER}s, $(ls "$corpus" | wc -l) corpus + $(ls "$seeds" | wc -l) seed inputs"
  t0=$SECONDS
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$OUT/fuzz/fuzz_$t" -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 -max_len="$maxlen" \
      -dict="$dict" -artifact_prefix="$OUT/crashes/$t-" -print_final_stats=1 \
      $([ "$JOBS" -gt 1 ] && echo "-fork=$JOBS") \
      "$corpus" "$seeds" "${regs[@]}" >"$log" 2>&1
  frc=$?
  dt=$((SECONDS - t0))
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
  rss=$(grep -E '^stat::peak_rss_mb' "$log" | awk '{print $2}' | sort -n | tail -n1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n1 | awk '{print $2}')
  status=ok
  if [ "$frc" != 0 ] || ls "$OUT/crashes/$t-"* >/dev/null 2>&1; then
    status=CRASH
    rc=1
    grep -E 'ERROR: |runtime error|fuzz invariant|SUMMARY|Test unit written|==[0-9]+== ' "$log" | head -n 20
  fi
  ROWS+=("$(printf '%-10s %-6s %6ss %12s execs %9s exec/s  cov %-6s rss %sMB' "fuzz_$t" "$status" "$dt" "$execs" \
    "$((execs / (dt > 0 ? dt : 1)))" "${cov:-?}" "${rss:-?}")")
done
echo
echo "=== fuzz summary (logs in $OUT/, crashes in $OUT/crashes/)"
printf '%s\n' "${ROWS[@]}"
exit $rc
