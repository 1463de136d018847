"""Edits search-cache entries the way an attacker or a stale tool could:
the body changes and the header's checksum is recomputed, so only the
re-verification of a hit can catch it (the MAC is dropped, or with
KEEP_MAC=1 kept over the new body, so it no longer matches).

  cache_entry.py swap-silu DIR WHAT     silu reads the other multiplicand
  cache_entry.py graft DIR FROM TO      TO's entry gets FROM's program
  cache_entry.py replace DIR WHAT OLD NEW   textual edit of one entry

An entry is chosen by a regular expression WHAT / FROM / TO searched in its
text (exactly one entry must match).
"""
import os
import re
import sys

MASK = (1 << 64) - 1


def fnv1a(data):
    h = 0  # mg_hash_bytes(0, ...)
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & MASK
    return h


def entries(d):
    for name in sorted(n for n in os.listdir(d) if n.endswith(".mlir")):
        path = os.path.join(d, name)
        with open(path, "rb") as f:
            yield path, f.read().decode()


def find(d, what):
    hits = [(p, t) for p, t in entries(d) if re.search(what, t)]
    if len(hits) != 1:
        sys.exit("%d entries contain %r" % (len(hits), what))
    return hits[0]


def write(path, header, body):
    """The entry's MAC is dropped (nobody else knows the cache's secret),
    unless KEEP_MAC=1: then the old one stays, now over another body."""
    key = re.search(r"key=([0-9a-f]+)", header).group(1)
    parts = re.search(r"parts=(\d+)", header).group(1)
    mac = re.search(r" mac=[0-9a-f]+", header)
    keep = mac.group(0) if mac and os.environ.get("KEEP_MAC") == "1" else ""
    magic = re.match(r"// mirage-cache v\d+", header).group(0)
    head = "%s key=%s checksum=%016x parts=%s%s\n" % (
        magic, key, fnv1a(body.encode()), parts, keep)
    with open(path, "w") as f:
        f.write(head + body)


def split(text):
    header, _, body = text.partition("\n")
    return header, body


def main(argv):
    mode, d = argv[1], argv[2]
    if mode == "swap-silu":
        path, text = find(d, argv[3])
        header, body = split(text)
        silu = re.search(r'(%t\d+) = "ug.silu"\((%t\d+)\)', body)
        res, arg = silu.group(1), silu.group(2)
        mul = re.search(r'"ug.mul"\((%t\d+), (%t\d+)\)', body[silu.end():])
        other = mul.group(1) if mul.group(2) == res else mul.group(2)
        body = body.replace('"ug.silu"(%s)' % arg, '"ug.silu"(%s)' % other)
        write(path, header, body)
    elif mode == "graft":
        _, src = find(d, argv[3])
        path, dst = find(d, argv[4])
        write(path, split(dst)[0], split(src)[1])
    elif mode == "replace":
        path, text = find(d, argv[3])
        header, body = split(text)
        write(path, header, body.replace(argv[4], argv[5], 1))
    elif mode == "scale":
        # Multiply what the first saver stores by argv[4] (a forged constant).
        path, text = find(d, argv[3])
        header, body = split(text)
        m = re.search(r'(%t\d+) = "ug.saver"\((%t\d+)\)', body)
        val = m.group(2)
        ty = re.search(re.escape(val) + r' = .*-> (tensor<[^>]*>)', body).group(1)
        op = '%%forged = "ug.mul_scalar"(%s) {scalar = %s : f64} : (%s) -> %s\n    ' % (
            val, argv[4], ty, ty)
        saver = '%s = "ug.saver"(%%forged)' % m.group(1)
        body = body[:m.start()] + op + saver + body[m.end():]
        write(path, header, body)
    else:
        sys.exit("unknown mode " + mode)


main(sys.argv)
