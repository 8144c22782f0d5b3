#!/usr/bin/env bash
# setup.sh -- install everything onnx-memplan needs on a fresh Debian 12 machine.
# Idempotent and quick when everything is already there. Safe to run as root
# (CI) or with sudo available.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

DEB_PACKAGES=(
  build-essential cmake clang libclang-rt-14-dev
  emscripten node-acorn binaryen
  protobuf-c-compiler libprotobuf-c-dev protobuf-compiler python3-protobuf
  libonnx-dev python3-onnx python3-numpy libonnx-testdata
  libcmocka-dev valgrind
  chromium chromium-driver
)

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The protobuf-c runtime source, for compiling it natively and with emcc. It
# comes from Debian's source package; the deb-src entry is temporary.
PBC_DIR=.deps/protobuf-c
PBC_SHA=5af483ef
if [ ! -f "$PBC_DIR/protobuf-c/protobuf-c.c" ]; then
  echo "setup: fetching the protobuf-c runtime source (Debian source package)"
  tmp=$(mktemp -d)
  src_list=/etc/apt/sources.list.d/memplan-deb-src.sources
  cleanup() {
    $SUDO rm -f "$src_list"
    $SUDO apt-get update -qq || true
    rm -rf "$tmp"
  }
  trap cleanup EXIT
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    | $SUDO tee "$src_list" >/dev/null
  $SUDO apt-get update -qq
  (cd "$tmp" && apt-get source --download-only protobuf-c >/dev/null 2>&1)
  orig=$(ls "$tmp"/protobuf-c_*.orig.tar.gz | head -n1)
  mkdir -p .deps
  rm -rf "$PBC_DIR"
  mkdir -p "$PBC_DIR"
  tar -xzf "$orig" -C "$PBC_DIR" --strip-components=1
  got=$(sha256sum "$PBC_DIR/protobuf-c/protobuf-c.c" | cut -c1-8)
  if [ "$got" != "$PBC_SHA" ]; then
    echo "setup: unexpected protobuf-c.c (sha256 $got...), expected $PBC_SHA..." >&2
    exit 1
  fi
  cleanup
  trap - EXIT
fi

# JavaScript dependencies (Vitest, Vite, D3, Playwright core, fixture models).
if [ -f package-lock.json ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "setup: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
echo "setup: ok"
