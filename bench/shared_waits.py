"""Shared-memory loads per wait in each kernel's machine code.

usage: shared_waits.py SASS_DIR CUBIN...   (SASS_DIR: ../shared/tools/sass)

The evidence behind the cost model's element-loop rule (docs/cost.md,
"Element loops"): a thread's elements overlap 4 at a time. Decodes each
cubin with the SASS reader's decoder (sasshist.py, inflight.py's operand
rule) and walks every kernel in order: a wait is an instruction reading
the destination of an LDS still pending; the run before it is the LDS
issued since the last wait. Prints per kernel the waits, the LDS and the
histogram "run:count". Static counts over the whole kernel, not per loop;
evidence, not proof.
"""
import collections
import os
import sys

sass = sys.argv[1]
exec(open(os.path.join(sass, 'sasshist.py')).read().split('def main')[0])
src = open(os.path.join(sass, 'inflight.py')).read()
exec(src[src.index('def regs_read'):src.index('serial = starved')])  # regs_read, WB

LDS = 0x984
for path in sys.argv[2:]:
    for name, code in sections(path):
        if not name.startswith('.text.'):
            continue
        pending, run, runs = {}, 0, []
        for o, lo, hi in census(code):
            if pending and any(r & regs_read(lo, hi) for r in pending.values()):
                runs.append(run)
                pending, run = {}, 0
            if o == LDS:
                rd, w = (lo >> 16) & 0xff, WB.get((hi >> 9) & 7, 4)
                pending[len(pending)] = set(range(rd, rd + max(1, w // 4)))
                run += 1
        if not runs and not run:
            continue
        hist = ' '.join('%d:%d' % kv for kv in sorted(collections.Counter(runs).items()))
        print('%-34s lds=%-4d waits=%-3d lds-per-wait %s' % (name[6:], sum(runs) + run, len(runs), hist))
