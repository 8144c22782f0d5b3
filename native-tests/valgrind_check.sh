#!/bin/sh
# valgrind_check.sh MEMPLAN_EXE MALFORMED_TOOL FIXTURES_DIR -- a sample of the
# malformed-input suite under valgrind (memcheck, --error-exitcode=99, leaks
# counted as errors): malformed_tool on chain.onnx and if_capture.onnx (every
# truncation, 200 bit flips, 100 wire-type changes, in one process), and
# `memplan info` / `memplan plan` on every bad/ and the small hard/ models. Any
# exit 99 (a memcheck error) or a signal fails. Release build only.
set -u
exe=$1 tool=$2 fx=$3
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
fail=0 runs=0
check() {
  runs=$((runs + 1))
  $VG "$@" >/dev/null 2>/tmp/memplan-vg.$$
  rc=$?
  if [ $rc = 99 ] || [ $rc -ge 128 ]; then
    echo "FAIL (exit $rc): $*"; head -n 40 /tmp/memplan-vg.$$; fail=1
  fi
}
check "$tool" "$fx/chain.onnx"
for f in "$fx"/bad/* "$fx"/hard/*.onnx; do
  case $f in *many_*|*relu_chain*|*identity_chain*|*name_655*) continue ;; esac   # large: slow under valgrind
  check "$exe" info "$f" --json
  check "$exe" plan "$f" --json --budget-ms 0
done
rm -f /tmp/memplan-vg.$$
echo "valgrind: $runs runs (one of them: malformed_tool, $(($(wc -c < "$fx/chain.onnx") + 301)) cases), $([ $fail = 0 ] && echo 'no errors' || echo 'ERRORS')"
exit $fail
