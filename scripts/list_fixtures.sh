#!/usr/bin/env bash
# list_fixtures.sh -- absolute paths of the .onnx models shipped by the npm
# fixture packages, sorted. Options as scripts/list_fixtures.mjs (--unique, --all).
set -euo pipefail
exec node "$(dirname "$0")/list_fixtures.mjs" "$@"
