"""Loads and SFU results issued per wait in each kernel's machine code.

usage: shared_waits.py SASS_DIR CUBIN...   (SASS_DIR: ../shared/tools/sass)

The evidence behind the cost model's element-loop rule (docs/cost.md,
"Element loops"): a thread's elements overlap 4 at a time. Decodes each
cubin with the SASS reader's decoder (sasshist.py, inflight.py's operand
rule) and walks every kernel in order, twice: for shared loads (LDS) and
for SFU results (MUFU: exp's ex2, rsqrt, ...). A wait is an instruction
reading the destination of one still pending; the run before it is how
many were issued since the last wait. Prints per kernel the counts and the
histograms "run:count". Static counts over the whole kernel, not per
loop, and MUFU's destination decoding is the reader's general rule:
evidence, not proof.
"""
import collections
import os
import sys

sass = sys.argv[1]
exec(open(os.path.join(sass, 'sasshist.py')).read().split('def main')[0])
src = open(os.path.join(sass, 'inflight.py')).read()
exec(src[src.index('def regs_read'):src.index('serial = starved')])  # regs_read, WB

LDS, MUFU = 0x984, 0x308


def runs_of(ops, opcode):
    pending, run, runs = {}, 0, []
    for o, lo, hi in ops:
        if pending and any(r & regs_read(lo, hi) for r in pending.values()):
            runs.append(run)
            pending, run = {}, 0
        if o == opcode:
            rd = (lo >> 16) & 0xff
            w = WB.get((hi >> 9) & 7, 4) if opcode == LDS else 4
            pending[len(pending)] = set(range(rd, rd + max(1, w // 4)))
            run += 1
    return runs + ([run] if run else [])


def hist(runs):
    return ' '.join('%d:%d' % kv for kv in sorted(collections.Counter(runs).items())) or '-'


for path in sys.argv[2:]:
    for name, code in sections(path):
        if not name.startswith('.text.'):
            continue
        ops = census(code)
        lds, sfu = runs_of(ops, LDS), runs_of(ops, MUFU)
        if not lds and not sfu:
            continue
        print('%-34s lds=%-4d per wait %-28s mufu=%-3d per wait %s'
              % (name[6:], sum(lds), hist(lds), sum(sfu), hist(sfu)))
