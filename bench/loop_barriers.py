"""Barriers per for-loop iteration of each graph-defined kernel.

Reads the GPU modules of a lowered module (ptx=false) and prints, per
gpu.func, "NAME F DIRECT NESTED": the block graph's for-loop range F (the
top-level scf.for from a constant 0) and the gpu.barrier ops its body runs
per iteration, directly and inside nested ops (the uniform barrier of a
cross-warp reduction). The for-loop is the scf.for lib/lower marks
{mirage.for_loop}. Kernels without one print "NAME - 0 0".
"""
import re
import sys

consts, out = {}, []
func = None
for line in open(sys.argv[1]):
    s = line.strip()
    m = re.match(r'(%\w+) = arith\.constant (-?\d+) : index', s)
    if m:
        consts[m.group(1)] = int(m.group(2))
    m = re.search(r'gpu\.func @"?(\w+)', s)
    if m:
        func, stack, found = m.group(1), [], None
        continue
    if func is None:
        continue
    m = re.match(r'(?:%\S+ = )?scf\.(for|if)\b(.*)\{$', s)
    if m:
        lo = re.match(r' %\S+ = (%\w+) to (%\w+)', m.group(2)) if m.group(1) == 'for' else None
        main = not stack and lo is not None
        stack.append({'main': main, 'F': consts.get(lo.group(2)) if lo else None,
                      'direct': 0, 'nested': 0})
        continue
    if s.startswith('}') and not s.startswith('} else') and stack:
        top = stack.pop()
        if not stack and top['main'] and 'mirage.for_loop' in s:
            found = top
        continue
    if s == 'gpu.barrier' and stack and stack[0]['main']:
        stack[0]['direct' if len(stack) == 1 else 'nested'] += 1
    if s == 'gpu.return':
        f = found or {'F': '-', 'direct': 0, 'nested': 0}
        out.append('%s %s %d %d' % (func, f['F'], f['direct'], f['nested']))
        func = None
print('\n'.join(out))
