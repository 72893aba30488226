#!/usr/bin/env python3
"""Seeds for voxen_sim_state_fuzz: simulation states as Simulator::save_state writes them
(docs/formats/world_store_v1.md, payload 8). Usage: fuzz/sim_state_seeds.py OUT_DIR"""
import os
import struct
import sys


def state(tick, sections):
    out = b"VXSIM" + bytes([1]) + struct.pack("<QI", tick, len(sections))
    for x, s, z in sorted(sections):
        out += struct.pack("<qBq", x, s, z)
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        "empty": state(0, []),
        "one": state(7, [(0, 8, 0)]),
        "many": state(123456, [(-1, 8, 0), (0, 8, -1), (0, 9, 0), (1, 8, 0), (2**40, 3, -2**40)]),
        "big": state(2**63, [(x, x % 24, -x) for x in range(-20, 20)]),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
