"""Writes the PTX of every gpu.binary in an MLIR file to <out>/<name>.ptx.

The assembly is the `assembly = "..."` string of a #gpu.object, escaped the
MLIR way (\\XX hex bytes). Prints one line per file written.
"""
import os
import re
import sys

text = open(sys.argv[1]).read()
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
count = 0
for m in re.finditer(r'gpu\.binary @(\w+)\s+\[#gpu\.object<.*?assembly = "((?:[^"\\]|\\.)*)"', text, re.S):
    name, raw = m.group(1), m.group(2)
    ptx = re.sub(r'\\([0-9A-Fa-f]{2})', lambda h: chr(int(h.group(1), 16)), raw)
    ptx = ptx.replace('\\"', '"').replace('\\\\', '\\')
    path = os.path.join(out, name + ".ptx")
    with open(path, "w") as f:
        f.write(ptx)
    print(path)
    count += 1
if count == 0:
    sys.exit("extract_ptx: no gpu.binary with PTX assembly in " + sys.argv[1])
