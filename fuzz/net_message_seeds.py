#!/usr/bin/env python3
"""Writes seed inputs for voxen_net_message_fuzz into the folder given (default ./seeds): one valid body of most
message types, each with the side byte first (0: a client's message, 1: a server's), as docs/formats/protocol.md lays
them out."""
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "seeds"
os.makedirs(out, exist_ok=True)
seeds = {
    "hello": b"\x00\x01" + struct.pack("<IH", 0x4E584F56, 1) + bytes([5]) + b"alice" + bytes([8]),
    "request": b"\x00\x02" + struct.pack("<H", 2) + struct.pack("<qqqq", 0, 0, -1, 5),
    "edit": b"\x00\x04" + struct.pack("<Iqhq", 7, -17, 64, 33) + struct.pack("<HBHB", 1, 0, 5, 3),
    "pose": b"\x00\x05" + struct.pack("<dddffB", 1.5, 70, 2, 90, -10, 1),
    "chat": b"\x00\x06" + struct.pack("<H", 5) + b"hello",
    "leave": b"\x00\x07",
    "log_query": b"\x00\x08" + struct.pack("<I", 3),
    "welcome": b"\x01\x40" + struct.pack("<HI", 1, 3) + bytes([1]) + b"w" + struct.pack("<Q", 42) + bytes([7]) + b"default"
    + bytes([16]) + b"0123456789abcdef" + struct.pack("<QBHHdddIQ", 77, 8, 600, 20, 0.5, 71, 0.5, 0, 0),
    "refuse": b"\x01\x41" + struct.pack("<H", 4) + b"left",
    "column_unedited": b"\x01\x42" + struct.pack("<qqQII", 1, 1, 5, 0, 0),
    "edit_result": b"\x01\x43" + struct.pack("<IBQqhqHB", 7, 1, 0, 1, 2, 3, 1, 0),
    "edits": b"\x01\x44" + struct.pack("<H", 1) + struct.pack("<QIqhqHB", 400, 2, -5, 100, 9, 3, 0),
    "changes": b"\x01\x45" + struct.pack("<QqqH", 12, -1, -1, 1) + struct.pack("<BhHB", 0x1F, -128, 8, 2),
    "poses": b"\x01\x46" + struct.pack("<H", 1) + struct.pack("<IdddffB", 2, 1, 2, 3, 4, 5, 0),
    "joined": b"\x01\x47" + struct.pack("<I", 4) + bytes([3]) + b"bob",
    "log_entries": b"\x01\x4a\x01" + struct.pack("<H", 1) + struct.pack("<IQ", 1, 10),
    "hashes": b"\x01\x4b" + struct.pack("<H", 1) + struct.pack("<qqBQ", 0, 0, 1, 99),
}
for name, body in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(body)
print(f"{len(seeds)} seeds in {out}")
