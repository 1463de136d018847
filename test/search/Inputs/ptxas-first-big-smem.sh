#!/bin/sh
# A stand-in ptxas for test/search/rank-ptxas.mlir: runs the real one
# ($REAL_PTXAS) and, on the first assembly only (a counter file at
# $PTXAS_STATE), reports 200000 bytes of static shared memory for its
# kernels: one block per SM, so that the ranking must reorder.
if [ "$1" = "--version" ]; then exec "$REAL_PTXAS" --version; fi
n=0
[ -f "$PTXAS_STATE" ] && n=$(cat "$PTXAS_STATE")
echo $((n + 1)) > "$PTXAS_STATE"
out=$("$REAL_PTXAS" "$@" 2>&1); rc=$?
if [ "$n" = 0 ]; then
  printf '%s\n' "$out" | sed 's/[0-9]* bytes smem/200000 bytes smem/'
else
  printf '%s\n' "$out"
fi
exit $rc
