#!/usr/bin/env python3
"""The corpus of `make slurm-check`: COUNT GIFs in nested folders under LIBRARY, DAMAGED of them broken in
ways gifx must reject (empty file, bytes that are not a GIF, a header and nothing else: all `malformed`),
and a manifest (JSON) with, per relative path: its shard K of N (FNV-1a-64 of the UTF-8 relative path, as
docs/scale-out.md defines it, computed here independently of gifx), whether it is damaged, and for a clean
one its duration from the delays written (every delay >= 2 cs, so no player rule changes it).
The inputs of shard SLOW (the task the check cancels midway) are made larger, so that task is surely
still running when it is cancelled.

    slurm_corpus.py LIBRARY MANIFEST COUNT DAMAGED SHARDS SLOW"""
import json, os, random, sys

from PIL import Image, ImageDraw

library, manifest_path = sys.argv[1], sys.argv[2]
count, damaged, shards, slow = (int(v) for v in sys.argv[3:7])


def fnv1a64(text):
    h = 0xcbf29ce484222325
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


rng = random.Random(27)
names = []
for i in range(count):
    folder = ["artists/a", "artists/b", "stickers", "stickers/2026", "memes/é-accents", "."][i % 6]
    names.append(os.path.normpath(f"{folder}/gif-{i:04d}.gif"))
broken = set(rng.sample(range(count), damaged))
manifest = {}
for i, rel in enumerate(names):
    shard = fnv1a64(rel) % shards
    path = os.path.join(library, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if i in broken:
        kind = ["empty", "not-a-gif", "header-only"][i % 3]
        data = {"empty": b"", "not-a-gif": rng.randbytes(1500),
                "header-only": b"GIF89a\x40\x00\x30\x00\x80\x00\x00"}[kind]
        open(path, "wb").write(data)
        manifest[rel] = {"shard": shard, "damaged": kind}
        continue
    big = shard == slow
    w, h = (rng.choice([(320, 240), (400, 300)]) if big else rng.choice([(48, 48), (96, 64), (120, 90), (160, 120)]))
    n = rng.randint(30, 45) if big else rng.randint(4, 16)
    delays = [rng.choice([2, 4, 5, 7, 10, 20]) for _ in range(n)]
    frames = []
    for k in range(n):
        im = Image.new("P", (w, h), 0)
        im.putpalette([c for j in range(256) for c in ((j * 37) % 256, (j * 91) % 256, (j * 53) % 256)])
        d = ImageDraw.Draw(im)
        x = (k * w // n) % w
        d.rectangle([x, h // 4, min(w - 1, x + w // 5), h // 2], fill=1 + k % 250)
        d.ellipse([w // 3, (k * 3) % h, w // 3 + 10, (k * 3) % h + 10], fill=255 - k % 200)
        frames.append(im)
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=[d * 10 for d in delays], loop=0,
                   disposal=1, optimize=False)
    manifest[rel] = {"shard": shard, "damaged": None, "centiseconds": sum(delays), "frames": n}
json.dump({"shards": shards, "slow": slow, "inputs": manifest}, open(manifest_path, "w"), indent=1, ensure_ascii=False)
per = [sum(1 for v in manifest.values() if v["shard"] == k) for k in range(shards)]
print(f"corpus: {count} GIFs ({damaged} damaged) in {library}; per shard: {per}")
