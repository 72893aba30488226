#!/usr/bin/env python3
"""Seeds for voxen_anvil_fuzz (docs/FUZZING.md) from the real worlds in ../shared/data/anvil (never copied into the
repository): chunks as stored (mode byte 0x01: zlib) and uncompressed (0x02: none), and small region files of two
chunks each (mode byte 0x80). Usage: fuzz/anvil_seeds.py SHARED_ANVIL_DIR OUT_DIR [MAX_BYTES]"""
import os, struct, sys, zlib

src, out = sys.argv[1], sys.argv[2]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else 65536
os.makedirs(out, exist_ok=True)
n = 0
for world in sorted(os.listdir(src)):
    rdir = os.path.join(src, world, "region")
    if not os.path.isdir(rdir):
        continue
    for name in sorted(os.listdir(rdir)):
        data = open(os.path.join(rdir, name), "rb").read()
        picked = []
        for i in range(1024):
            loc = struct.unpack_from(">I", data, i * 4)[0]
            if loc == 0:
                continue
            at = (loc >> 8) * 4096
            length, comp = struct.unpack_from(">IB", data, at)
            payload = data[at + 5:at + 4 + length]
            raw = zlib.decompress(payload) if comp == 2 else payload
            if len(raw) + 1 <= limit and len(picked) < 3:
                picked.append((comp, payload, raw))
        for k, (comp, payload, raw) in enumerate(picked):
            open(os.path.join(out, "%s_%s_%d_raw" % (world, name, k)), "wb").write(b"\x02" + raw)
            if comp == 2:
                open(os.path.join(out, "%s_%s_%d_zlib" % (world, name, k)), "wb").write(b"\x01" + payload)
            n += 1
        if len(picked) >= 2:  # a region of two chunks at slots 0 and 33
            body = bytearray(8192)
            for slot, (comp, payload, raw) in zip((0, 33), picked[:2]):
                sector = len(body) // 4096
                chunk = struct.pack(">IB", len(payload) + 1, comp) + payload
                chunk += b"\0" * (-len(chunk) % 4096)
                struct.pack_into(">I", body, slot * 4, sector << 8 | len(chunk) // 4096)
                body += chunk
            if len(body) + 1 <= limit * 2:
                open(os.path.join(out, "%s_%s_region" % (world, name)), "wb").write(b"\x80" + bytes(body))
print("wrote seeds for %d chunks to %s" % (n, out))
