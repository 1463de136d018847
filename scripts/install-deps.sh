#!/usr/bin/env bash
# Installs the build and test dependencies (LLVM/MLIR 22, cmake, a C compiler,
# Graphviz, gnuplot, hiredis/Redis and Open MPI). Idempotent: packages already present are not
# reinstalled.
set -euo pipefail

# graphviz: `dot`, which the lit tests run on the μGraph pictures
# (--mirage-dump-dot) and bench/render-graphs.sh renders them with;
# gnuplot-nox: that script's speedup chart; libhiredis-dev and
# redis-server: the shared search cache (cache-url=redis://...) and the
# Redis server its tests start on a free loopback port; libopenmpi-dev and
# openmpi-bin: the MPI search (`mpirun -np N mirage-opt ...`, mpicc).
pkgs=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools cmake ninja-build gcc g++ python3
      graphviz gnuplot-nox pkg-config libhiredis-dev redis-server
      libopenmpi-dev openmpi-bin)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all packages present"
fi

if [ -x /usr/local/cuda/bin/ptxas ]; then
  echo "install-deps: CUDA toolkit found at /usr/local/cuda (ptxas, libdevice enabled)"
else
  echo "install-deps: CUDA toolkit not found; PTX validation with ptxas will be reported as unavailable"
fi
