#!/usr/bin/env bash
# coverage.sh -- line coverage of the C library (src/) by the native tests:
#   `make coverage` (or bash scripts/coverage.sh [--files]). Builds
#   build/coverage (Debug, gcc --coverage), runs its ctest suite (all but the
#   valgrind sample and the install check) on the generated fixtures, then sums gcov's line counts
#   per folder of src/ (per file too with --files) into a table, and writes
#   gcov's JSON per source to build/coverage/gcov/. Not part of `make test`:
#   it measures the suite, it does not check anything. Lines the compiler
#   keeps no count for (declarations, braces) are not lines here, as in gcov.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
JOBS=$(nproc 2>/dev/null || echo 2)
B=build/coverage
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Debug -DMEMPLAN_COVERAGE=ON >/dev/null
cmake --build "$B" -j"$JOBS" >/dev/null
if [ ! -d build/fixtures ]; then
  mkdir -p build/fixtures && /usr/bin/python3 scripts/gen_fixtures.py build/fixtures
fi
[ -e "$B/fixtures" ] || ln -s ../fixtures "$B/fixtures"
find "$B" -name '*.gcda' -delete
# (install_prefix builds a consumer of the installed archive, which would need the gcov runtime)
ctest --test-dir "$B" -j"$JOBS" -LE valgrind -E '^install_prefix$' --output-on-failure >"$B/ctest.log" 2>&1 ||
  { tail -30 "$B/ctest.log"; echo "coverage: some tests failed (log: $B/ctest.log)" >&2; exit 1; }
rm -rf "$B/gcov" && mkdir -p "$B/gcov"
# gcov of each object of the library, as JSON (one .gcov.json.gz per source)
find "$ROOT/$B" -path "*memplan_core.dir*" -name "*.gcda" -print0 |
  (cd "$B/gcov" && xargs -0 -n 32 gcov --json-format --preserve-paths >/dev/null)
/usr/bin/python3 - "$ROOT" "$B/gcov" "${1:-}" <<'PY'
import collections, glob, gzip, json, os, sys
root, gdir, mode = sys.argv[1], sys.argv[2], sys.argv[3]
lines = collections.defaultdict(dict)  # source -> {line: count}
for f in glob.glob(os.path.join(gdir, "*.gcov.json.gz")):
    doc = json.load(gzip.open(f))
    for src in doc["files"]:
        path = os.path.relpath(os.path.join(doc.get("current_working_directory", root), src["file"]), root)
        if not path.startswith("src/"):
            continue
        seen = lines[path]
        for ln in src["lines"]:
            seen[ln["line_number"]] = max(seen.get(ln["line_number"], 0), ln["count"])
def row(name, files):
    run = sum(sum(1 for c in lines[f].values() if c) for f in files)
    tot = sum(len(lines[f]) for f in files)
    return f"| {name} | {run} / {tot} | {100.0 * run / max(tot, 1):.1f}% |"
folders = collections.defaultdict(list)
for f in lines:
    folders[os.path.dirname(f)].append(f)
print("| src/ folder | lines run | coverage |\n|---|---|---|")
for d in sorted(folders):
    print(row(d, folders[d]))
print(row("**all**", list(lines)))
if mode == "--files":
    print("\n| file | lines run | coverage |\n|---|---|---|")
    for f in sorted(lines):
        print(row(f, [f]))
PY
