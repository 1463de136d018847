#!/usr/bin/env python3
"""Rewrites every mirage entry in the Redis server at $REDIS_PORT.

    redis_entries.py count
    redis_entries.py MODE      (MODE: truncate, random, op, shape, huge)

`count` prints how many entries there are. The modes stand for a hostile
or broken writer: truncate keeps the first half of each value (its
checksum no longer matches), random writes random bytes, op swaps the
μGraph's ug.sqrt for ug.rsqrt and fixes up the checksum (a wrong program
that parses), shape changes its 64 to 65 with the checksum fixed up, huge
writes 65 MiB (over the entry limit). Uses redis-cli, binary-safe through
stdin.
"""
import os
import random
import re
import subprocess
import sys

PORT = os.environ["REDIS_PORT"]


def cli(*args, data=None):
    return subprocess.run(["redis-cli", "-p", PORT, *args], input=data,
                          capture_output=True, check=True).stdout


def keys():
    return [k for k in cli("--scan", "--pattern", "mirage:*").decode().split() if k]


def checksum(body):
    # lib/support's mg_hash_bytes(0, ...): FNV-1a 64 from seed 0.
    h = 0
    for b in body:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def refix(value):
    head, _, body = value.partition(b"\n")
    head = re.sub(rb"checksum=[0-9a-f]+", b"checksum=%016x" % checksum(body), head)
    return head + b"\n" + body


def mutate(mode, value):
    if mode == "truncate":
        return value[: len(value) // 2]
    if mode == "random":
        return bytes(random.Random(7).getrandbits(8) for _ in range(len(value)))
    if mode == "op":
        return refix(value.replace(b'"ug.sqrt"', b'"ug.rsqrt"'))
    if mode == "shape":
        return refix(value.replace(b"x64x", b"x65x").replace(b"<64x", b"<65x"))
    if mode == "huge":
        return value + b" " * (65 << 20)
    sys.exit("unknown mode " + mode)


def main():
    mode = sys.argv[1]
    ks = keys()
    if mode == "count":
        print(len(ks))
        return
    for k in ks:
        raw = subprocess.run(["redis-cli", "-p", PORT, "--raw", "GET", k],
                             capture_output=True, check=True).stdout
        raw = raw[:-1] if raw.endswith(b"\n") else raw  # redis-cli adds one
        cli("-x", "SET", k, data=mutate(mode, raw))
    print(len(ks), "entries", mode)


if __name__ == "__main__":
    main()
