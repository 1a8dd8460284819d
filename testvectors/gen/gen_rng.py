#!/usr/bin/python3
"""Writes testvectors/suites/rng/: rng.exponential cases from PyTorch itself.

Reference: torch.Generator().manual_seed(seed) and q.exponential_(generator=g)
on the CPU. Run with Debian's python3-torch: /usr/bin/python3 gen_rng.py
(the suite is committed; tests and CI never run Python).
"""
import json
import os

import torch

from safetensors_io import write_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "suites", "rng")


def f32list(t):
    # repr of a float32 widened to float64 is exact, so Go reads it back bit for bit.
    return [float(v) for v in t.tolist()]


CASES = [
    ("seed_0", 0, [1, 7, 2048, 3072]),
    ("seed_42", 42, [1, 7, 2048, 3072]),
    ("seed_1", 1, [1, 7, 2048, 3072]),
    ("seed_2pow32_plus_1", 2**32 + 1, [1, 7, 2048, 3072]),
    ("seed_63bit", 2**63 - 1, [1, 7, 2048, 3072]),
    ("seed_63bit_b", 0x5DEECE66D1234567, [1, 7, 2048, 3072]),
    ("seed_minus_1", -1, [1, 7, 2048, 3072]),
    ("seed_1234_odd_lengths", 1234, [3, 311, 313, 1]),
    ("seed_2pow31", 2**31, [624, 1, 623]),
    ("seed_0xffffffff", 0xFFFFFFFF, [2048] * 3),
    ("seed_7_many_small", 7, [1] * 20 + [5, 17]),
    ("seed_99_predictor_frame", 99, [2048] * 15),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, seed, draws in CASES:
        g = torch.Generator().manual_seed(seed)
        expect, tensors = [], {}
        for i, n in enumerate(draws):
            q = torch.empty(n, dtype=torch.float32).exponential_(generator=g)
            if n <= 64:
                expect.append(f32list(q))
            else:
                key = "draw%d" % i
                tensors[key] = q
                expect.append({"tensor": key})
        case = {
            "kind": "rng.exponential",
            "name": "rng/" + name,
            "description": "torch %s CPU exponential_ after manual_seed(%d), draws %s" % (torch.__version__, seed, draws),
            "seed": seed,
            "draws": draws,
            "expect": expect,
        }
        base = os.path.join(OUT, name)
        with open(base + ".json", "w") as f:
            json.dump(case, f, indent=1)
            f.write("\n")
        if tensors:
            write_safetensors(base + ".safetensors", tensors)
        elif os.path.exists(base + ".safetensors"):
            os.remove(base + ".safetensors")
    print("wrote %d rng.exponential cases to %s" % (len(CASES), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
