"""Writes safetensors files by hand (no pip packages), shared by the generators.

Format: 8-byte little-endian header length, a JSON header padded with spaces to a
multiple of 8, then the raw little-endian tensor data in header order.
"""

import json
import struct

import torch

_DTYPES = {torch.float32: "F32", torch.int64: "I64", torch.bfloat16: "BF16"}


def write_safetensors(path, tensors):
    """Writes {name: tensor} (float32 -> F32, int64 -> I64, bfloat16 -> BF16) in the dict's order."""
    header, blobs, off = {}, [], 0
    for name, t in tensors.items():
        t = t.contiguous()
        dt = _DTYPES[t.dtype]
        if t.dtype == torch.bfloat16:
            data = t.view(torch.int16).numpy().tobytes()
        else:
            data = t.numpy().tobytes()
        header[name] = {"dtype": dt, "shape": list(t.shape), "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
