#!/bin/bash
# install_check.sh -- the installed C library, used as a runtime author would.
#
# Installs the build into a temporary prefix, then builds examples/allocate.c
# against the installed copy only: with pkg-config (libmemplan.so) and with
# find_package(memplan) (memplan::memplan, the static archive, and
# memplan::memplan_shared). Each must print exactly what the in-tree example
# prints on the fixtures, and the installed CLI what the in-tree CLI prints.
# Also: only memplan_* is exported (both libraries), the man page is there.
# Usage: install_check.sh BUILD_DIR SOURCE_DIR FIXTURES_DIR ALLOCATE MEMPLAN
set -u
build=$1 src=$2 fixtures=$3 allocate=$4 memplan=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
for f in lib/libmemplan.a lib/libmemplan.so lib/libmemplan.so.0.1 include/memplan/memplan.h \
         include/memplan/model_plan.h bin/memplan share/man/man1/memplan.1 lib/pkgconfig/memplan.pc \
         lib/cmake/memplan/memplanConfig.cmake lib/cmake/memplan/memplanConfigVersion.cmake; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done

# Exports: every defined global symbol is memplan_* (nm prints "ADDR T name").
others=$(nm -D --defined-only "$prefix/lib/libmemplan.so" | awk '$3 !~ /^memplan_/ {print $3}')
[ -z "$others" ] || fail "libmemplan.so exports non-memplan symbols: $(echo $others | head -c 300)"
others=$(nm --defined-only -g "$prefix/lib/libmemplan.a" 2>/dev/null | awk 'NF == 3 && $3 !~ /^memplan_/ {print $3}')
[ -z "$others" ] || fail "libmemplan.a has non-memplan globals: $(echo $others | head -c 300)"
for s in $(nm -D --defined-only "$prefix/lib/libmemplan.so" | awk '{print $3}'); do
  grep -rqw -- "$s" "$prefix/include/memplan" || fail "libmemplan.so exports $s, which no installed header declares"
done
nm -D --defined-only "$prefix/lib/libmemplan.so" | grep -q ' T memplan_plan_model$' || fail "libmemplan.so lacks memplan_plan_model"
grep -q '^\.TH MEMPLAN 1' "$prefix/share/man/man1/memplan.1" || fail "memplan.1 has no .TH line"
grep -q 'plan MODEL' "$prefix/share/man/man1/memplan.1" || fail "memplan.1 does not list 'plan MODEL'"

# 1. pkg-config, the shared library (rpath to the install).
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion memplan)" = "$("$memplan" --version | cut -d' ' -f2)" ] || fail "memplan.pc version"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags memplan) "$src/examples/allocate.c" -o "$tmp/allocate_pc" \
   $(pkg-config --libs memplan) -Wl,-rpath,"$(pkg-config --variable=libdir memplan)" || fail "pkg-config build"
# The .pc's paths are relative to itself (lib/pkgconfig/../../lib): compare resolved.
used=$(ldd "$tmp/allocate_pc" | awk '/libmemplan/ {print $3}')
[ -n "$used" ] && [ "$(readlink -f "$used")" = "$(readlink -f "$prefix/lib/libmemplan.so")" ] ||
  fail "allocate_pc does not use the installed libmemplan.so (ldd: ${used:-none})"

# 2. find_package, static and shared: a project of its own, outside the tree.
mkdir -p "$tmp/app"
cp "$src/examples/allocate.c" "$tmp/app/"
cat >"$tmp/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(app C)
find_package(memplan 0.1 REQUIRED)
add_executable(allocate_static allocate.c)
target_link_libraries(allocate_static PRIVATE memplan::memplan)
add_executable(allocate_shared allocate.c)
target_link_libraries(allocate_shared PRIVATE memplan::memplan_shared)
CM
if cmake -S "$tmp/app" -B "$tmp/app/build" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/app.log" 2>&1 &&
   cmake --build "$tmp/app/build" >>"$tmp/app.log" 2>&1; then :; else cat "$tmp/app.log"; fail "find_package build"; fi
readelf -d "$tmp/app/build/allocate_static" 2>/dev/null | grep -q libmemplan && fail "allocate_static links libmemplan.so"

# 3. The same bytes as the in-tree example and CLI, on fixtures (one deferred, then bound).
runs=0
while read -r model dims; do
  # shellcheck disable=SC2086
  want=$("$allocate" "$fixtures/$model" $dims 2>&1; echo "exit $?")
  for exe in "$tmp/allocate_pc" "$tmp/app/build/allocate_static" "$tmp/app/build/allocate_shared"; do
    # shellcheck disable=SC2086
    got=$("$exe" "$fixtures/$model" $dims 2>&1; echo "exit $?")
    [ "$got" = "$want" ] || fail "$(basename "$exe") $model $dims: got [$got] want [$want]"
    runs=$((runs + 1))
  done
  flags=()
  for d in $dims; do flags+=(--dim "$d"); done
  [ "$("$prefix/bin/memplan" plan "$fixtures/$model" --json "${flags[@]}")" = \
    "$("$memplan" plan "$fixtures/$model" --json "${flags[@]}")" ] || fail "installed memplan plan $model $dims"
done <<'LIST'
residual.onnx
diamond.onnx
if_capture.onnx
symbolic.onnx
symbolic.onnx batch=2 seq=16
LIST
case "$("$allocate" "$fixtures/residual.onnx")" in arena\ *) ;; *) fail "the in-tree allocate prints no arena line";; esac
echo "install_check: $runs example runs compared, $fails failures"
[ "$fails" -eq 0 ]
