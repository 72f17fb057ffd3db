#!/usr/bin/env python3
"""Makes the DEFLATE fixtures of InflaterTests with Python's zlib (raw DEFLATE: wbits=-15, no header).

Run from this folder: python3 make.py. The output is deterministic for a given zlib (these were made with
zlib 1.2.13); the tests only need each file to inflate to plain.bin, whatever zlib version wrote it.
"""
import random
import zlib

# 20,000 bytes: English-like words (literals and short matches), a repeated 300-byte run (matches of the
# longest length, 258, at distances above 256), and random bytes (literals that do not compress).
rng = random.Random(1951)
words = [b"store", b"model", b"entity", b"cache", b"Core", b"Data", b"inflate", b"Huffman", b"block", b"\n"]
plain = bytearray()
run = bytes(rng.randrange(256) for _ in range(300))
while len(plain) < 20000:
    choice = rng.randrange(10)
    if choice < 7:
        plain += rng.choice(words) + b" "
    elif choice < 9:
        plain += run
    else:
        plain += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
plain = bytes(plain[:20000])
open("plain.bin", "wb").write(plain)


def deflate(level, strategy, flush_every=None):
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15, 9, strategy)
    if flush_every is None:
        return compressor.compress(plain) + compressor.flush()
    out = b""
    for start in range(0, len(plain), flush_every):
        # Z_SYNC_FLUSH ends the block and adds an empty stored block (byte-aligned, LEN 0).
        out += compressor.compress(plain[start : start + flush_every]) + compressor.flush(zlib.Z_SYNC_FLUSH)
    return out + compressor.flush()


files = {
    "stored.deflate": deflate(0, zlib.Z_DEFAULT_STRATEGY),  # stored blocks only
    "fixed.deflate": deflate(9, zlib.Z_FIXED),  # fixed Huffman codes only
    "dynamic.deflate": deflate(9, zlib.Z_DEFAULT_STRATEGY),  # dynamic Huffman codes
    "mixed.deflate": deflate(6, zlib.Z_DEFAULT_STRATEGY, flush_every=3000),  # Huffman and empty stored blocks
}
for name, data in files.items():
    assert zlib.decompress(data, -15) == plain
    open(name, "wb").write(data)
    print(name, len(data), "block type of the first block:", (data[0] >> 1) & 3)
