#!/usr/bin/env bash
# Configures and builds into build/ (or $MIRAGE_BUILD_DIR). Installs missing
# dependencies first. Usage: scripts/build.sh [extra cmake args]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
bash "$root/scripts/install-deps.sh"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
