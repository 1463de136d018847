#!/usr/bin/env bash
# Configures and builds into build/ (or $MIRAGE_BUILD_DIR). Installs missing
# dependencies first. Usage: scripts/build.sh [extra cmake args]
# Extra cmake args (e.g. -DMIRAGE_SANITIZE=address,undefined) are applied
# to an existing build folder as well. $MIRAGE_BUILD_TARGETS (names
# separated by spaces) builds only those targets.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
bash "$root/scripts/install-deps.sh"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
elif [ "$#" -gt 0 ]; then
  cmake "$build" "$@" >/dev/null
fi
targets=()
[ -n "${MIRAGE_BUILD_TARGETS:-}" ] && read -ra targets <<<"$MIRAGE_BUILD_TARGETS"
cmake --build "$build" -j "$(nproc)" ${targets[@]+--target "${targets[@]}"}
