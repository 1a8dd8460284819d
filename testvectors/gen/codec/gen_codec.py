"""Writes the `codec` conformance suite (testvectors/suites/codec/).

An independent reference of the Qwen3-TTS 12 Hz codec decoder ("code2wav"),
written from the architecture description (research qwen3_tts.md A.7 and
wave2.md T7), not from any project's code. Every module is causal; the
reference is the whole forward over all frames at once (TESTVECTORS.md: not
the upstream 300-frame windowed decode).

Run by hand:  /usr/bin/python3 testvectors/gen/codec/gen_codec.py

Tolerances: every case is computed twice, in float64 (the expectation) and
float32; atol is a multiple of the largest |fp32 - fp64| difference over the
samples of that case (see TOL_FACTOR), so an fp32 implementation that sums
in another order passes and a wrong one does not.
"""

import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from safetensors_io import write_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.normpath(os.path.join(HERE, "..", "..", "suites", "codec"))
NQ = 16
TOL_FACTOR = 16.0

GEOMETRIES = {
    # window 5: cases of 6+ frames cross it; head_dim != hidden/heads.
    "tiny": dict(codebook_size=24, codebook_dim=16, latent_dim=24, decoder_dim=32, hidden_size=16,
                 intermediate_size=24, num_hidden_layers=2, num_attention_heads=2, head_dim=12,
                 sliding_window=5, upsampling_ratios=[2, 2], upsample_rates=[3, 2, 2, 2],
                 rms_norm_eps=1e-5, rope_theta=10000.0),
    # one upsampling stage, a stride-1 block (carry of one row), window 3, 3 layers, 4 heads.
    "tiny-b": dict(codebook_size=40, codebook_dim=12, latent_dim=20, decoder_dim=48, hidden_size=12,
                   intermediate_size=20, num_hidden_layers=3, num_attention_heads=4, head_dim=4,
                   sliding_window=3, upsampling_ratios=[2], upsample_rates=[2, 2, 3, 1],
                   rms_norm_eps=1e-5, rope_theta=10000.0),
    # every matrix and conv input a multiple of 32 wide: the geometry of the int8 cases.
    # three vocoder blocks (the block count comes from upsample_rates).
    "tiny-q": dict(codebook_size=32, codebook_dim=64, latent_dim=64, decoder_dim=256, hidden_size=32,
                   intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, head_dim=32,
                   sliding_window=4, upsampling_ratios=[2, 2], upsample_rates=[2, 3, 2],
                   rms_norm_eps=1e-5, rope_theta=10000.0),
}

# Reduced-precision cases: the bar is the SNR (against the float64 forward) of a float64
# simulation of symmetric int8 with one scale per 32 consecutive inputs (weights per output
# row and tap, activations per row), applied to every linear, conv and transposed conv
# (codebooks, norms, depthwise, α/β, scales stay exact), minus SNR_MARGIN_DB.
SNR_MARGIN_DB = 6.0
QUANT = {"on": False}


def qdq(t, dim):
    """Symmetric int8 quantize-dequantize of t in blocks of 32 along dim (dims not a multiple of 32 untouched)."""
    if not QUANT["on"] or t.shape[dim] % 32 != 0:
        return t
    t = t.movedim(dim, -1)
    shp = t.shape
    b = t.reshape(*shp[:-1], shp[-1] // 32, 32)
    scale = b.abs().amax(-1, keepdim=True) / 127
    q = torch.where(scale > 0, torch.round(b / torch.where(scale > 0, scale, torch.ones_like(scale))).clamp(-127, 127) * scale, b)
    return q.reshape(shp).movedim(-1, dim)


def lin(x, w, b=None):   # x [T, in], w [out, in]
    y = qdq(x, 1) @ qdq(w, 1).T
    return y if b is None else y + b


def spf(g):
    return math.prod(g["upsampling_ratios"]) * math.prod(g["upsample_rates"])


def tensor_shapes(g):
    """Every tensor of the speech_tokenizer decoder, PyTorch layouts, in graph order."""
    q, cd, L, H = g["codebook_dim"] // 2, g["codebook_dim"], g["latent_dim"], g["hidden_size"]
    A, I, D = g["num_attention_heads"] * g["head_dim"], g["intermediate_size"], g["decoder_dim"]
    s = {}
    for k in range(NQ):
        p = ("decoder.quantizer.rvq_first.vq.layers.0._codebook" if k == 0
             else "decoder.quantizer.rvq_rest.vq.layers.%d._codebook" % (k - 1))
        s[p + ".embedding_sum"] = (g["codebook_size"], q)
        s[p + ".cluster_usage"] = (g["codebook_size"],)
    for grp in ("rvq_first", "rvq_rest"):
        s["decoder.quantizer.%s.output_proj.weight" % grp] = (cd, q, 1)
        s["decoder.quantizer.%s.input_proj.weight" % grp] = (q, cd, 1)
    s["decoder.pre_conv.conv.weight"] = (L, cd, 3)
    s["decoder.pre_conv.conv.bias"] = (L,)
    pt = "decoder.pre_transformer."
    s[pt + "input_proj.weight"] = (H, L)
    s[pt + "input_proj.bias"] = (H,)
    for i in range(g["num_hidden_layers"]):
        p = pt + "layers.%d." % i
        s[p + "input_layernorm.weight"] = (H,)
        for n in "qkv":
            s[p + "self_attn.%s_proj.weight" % n] = (A, H)
        s[p + "self_attn.o_proj.weight"] = (H, A)
        s[p + "self_attn_layer_scale.scale"] = (H,)
        s[p + "post_attention_layernorm.weight"] = (H,)
        s[p + "mlp.gate_proj.weight"] = (I, H)
        s[p + "mlp.up_proj.weight"] = (I, H)
        s[p + "mlp.down_proj.weight"] = (H, I)
        s[p + "mlp_layer_scale.scale"] = (H,)
    s[pt + "norm.weight"] = (H,)
    s[pt + "output_proj.weight"] = (L, H)
    s[pt + "output_proj.bias"] = (L,)
    for j, r in enumerate(g["upsampling_ratios"]):
        p = "decoder.upsample.%d." % j
        s[p + "0.conv.weight"] = (L, L, r)
        s[p + "0.conv.bias"] = (L,)
        s[p + "1.dwconv.conv.weight"] = (L, 1, 7)
        s[p + "1.dwconv.conv.bias"] = (L,)
        s[p + "1.norm.weight"] = (L,)
        s[p + "1.norm.bias"] = (L,)
        s[p + "1.pwconv1.weight"] = (4 * L, L)
        s[p + "1.pwconv1.bias"] = (4 * L,)
        s[p + "1.pwconv2.weight"] = (L, 4 * L)
        s[p + "1.pwconv2.bias"] = (L,)
        s[p + "1.gamma"] = (L,)
    s["decoder.decoder.0.conv.weight"] = (D, L, 7)
    s["decoder.decoder.0.conv.bias"] = (D,)
    for i, st in enumerate(g["upsample_rates"]):
        cin, cout = D >> i, D >> (i + 1)
        p = "decoder.decoder.%d.block." % (1 + i)
        s[p + "0.alpha"] = (cin,)
        s[p + "0.beta"] = (cin,)
        s[p + "1.conv.weight"] = (cin, cout, 2 * st)
        s[p + "1.conv.bias"] = (cout,)
        for u in range(3):
            r = p + "%d." % (2 + u)
            s[r + "act1.alpha"] = (cout,)
            s[r + "act1.beta"] = (cout,)
            s[r + "conv1.conv.weight"] = (cout, cout, 7)
            s[r + "conv1.conv.bias"] = (cout,)
            s[r + "act2.alpha"] = (cout,)
            s[r + "act2.beta"] = (cout,)
            s[r + "conv2.conv.weight"] = (cout, cout, 1)
            s[r + "conv2.conv.bias"] = (cout,)
    n = len(g["upsample_rates"])
    od = D >> n
    s["decoder.decoder.%d.alpha" % (1 + n)] = (od,)
    s["decoder.decoder.%d.beta" % (1 + n)] = (od,)
    s["decoder.decoder.%d.conv.weight" % (2 + n)] = (1, od, 7)
    s["decoder.decoder.%d.conv.bias" % (2 + n)] = (1,)
    return s


def random_weights(g, gen):
    """Every tensor random (float32): weights ~ U·sqrt(3/fan_in), biases, norm gains, layer scales,
    gammas, SnakeBeta log-α/β all random; cluster_usage with entries below 1e-5 (and 0)."""
    w = {}
    for name, shape in tensor_shapes(g).items():
        u = torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1
        if name.endswith("cluster_usage"):
            t = 0.2 + torch.rand(shape, generator=gen, dtype=torch.float64) * 2
            t[::5] = 3e-6   # below the 1e-5 floor
            t[1::7] = 0.0
        elif name.endswith("embedding_sum"):
            t = u * 1.5
        elif name.endswith("norm.weight") or name.endswith("layernorm.weight"):
            t = 1 + 0.3 * u
        elif name.endswith("layer_scale.scale"):
            t = 0.6 * u
        elif name.endswith("gamma"):
            t = 0.6 * u
        elif name.endswith(".alpha") or name.endswith(".beta"):
            t = 0.7 * u
        elif name.endswith(".bias"):
            t = 0.2 * u
        else:
            fan = math.prod(shape[1:])
            if ".block.1.conv.weight" in name or (name.startswith("decoder.upsample.") and name.endswith(".0.conv.weight")):
                fan = shape[0] * shape[2] // 2 if ".block." in name else shape[0]
            t = u * math.sqrt(3.0 / fan)
            if "conv2.conv.weight" in name:
                t = t * 0.5
        w[name] = t.to(torch.float32)
    return w


# ---- the reference forward, on [C, T] tensors of one dtype ----

def causal_conv(x, w, b, dilation=1):
    k = w.shape[2]
    x = torch.nn.functional.pad(qdq(x, 0)[None], ((k - 1) * dilation, 0))
    return torch.nn.functional.conv1d(x, qdq(w, 1), b, dilation=dilation)[0]


def causal_depthwise(x, w, b):
    x = torch.nn.functional.pad(x[None], (w.shape[2] - 1, 0))
    return torch.nn.functional.conv1d(x, w, b, groups=w.shape[0])[0]


def trans_conv(x, w, b, stride):
    y = torch.nn.functional.conv_transpose1d(qdq(x, 0)[None], qdq(w, 0), b, stride=stride)[0]
    return y[:, : x.shape[1] * stride]   # right-trim k - stride


def snake(x, a, be):
    a = torch.exp(a)[:, None]
    be = torch.exp(be)[:, None]
    return x + torch.sin(x * a) ** 2 / (be + 1e-9)


def rms_norm(x, w, eps):   # x [T, H]
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def rope(x, pos, theta):   # x [heads, T, hd]
    hd = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    ang = pos.to(torch.float64)[:, None] * inv[None, :]
    emb = torch.cat([ang, ang], -1).to(x.dtype)
    cos, sin = emb.cos(), emb.sin()
    x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
    return x * cos + torch.cat([-x2, x1], -1) * sin


def forward(g, w, codes, dt):
    """codes: LongTensor [T, 16] -> samples [T·spf] (clamped)."""
    W = {k: v.to(dt) for k, v in w.items()}
    T = codes.shape[0]
    hq = None
    rest = None
    for k in range(NQ):
        p = ("decoder.quantizer.rvq_first.vq.layers.0._codebook" if k == 0
             else "decoder.quantizer.rvq_rest.vq.layers.%d._codebook" % (k - 1))
        cb = W[p + ".embedding_sum"] / W[p + ".cluster_usage"].clamp(min=1e-5)[:, None]
        e = cb[codes[:, k]]                               # [T, q]
        if k == 0:
            hq = e
        else:
            rest = e if rest is None else rest + e
    h = (lin(hq, W["decoder.quantizer.rvq_first.output_proj.weight"][:, :, 0])
         + lin(rest, W["decoder.quantizer.rvq_rest.output_proj.weight"][:, :, 0]))   # [T, cd]
    x = causal_conv(h.T, W["decoder.pre_conv.conv.weight"], W["decoder.pre_conv.conv.bias"])   # [L, T]
    pt = "decoder.pre_transformer."
    x = lin(x.T, W[pt + "input_proj.weight"], W[pt + "input_proj.bias"])   # [T, H]
    nh, hd, win, eps = g["num_attention_heads"], g["head_dim"], g["sliding_window"], g["rms_norm_eps"]
    pos = torch.arange(T)
    i = pos[:, None]
    j = pos[None, :]
    allowed = (j <= i) & (j > i - win)
    for li in range(g["num_hidden_layers"]):
        p = pt + "layers.%d." % li
        n = rms_norm(x, W[p + "input_layernorm.weight"], eps)
        q = lin(n, W[p + "self_attn.q_proj.weight"]).view(T, nh, hd).transpose(0, 1)
        k = lin(n, W[p + "self_attn.k_proj.weight"]).view(T, nh, hd).transpose(0, 1)
        v = lin(n, W[p + "self_attn.v_proj.weight"]).view(T, nh, hd).transpose(0, 1)
        q, k = rope(q, pos, g["rope_theta"]), rope(k, pos, g["rope_theta"])
        s = (q @ k.transpose(1, 2)) / math.sqrt(hd)
        s = s.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(s, -1) @ v                       # [nh, T, hd]
        a = a.transpose(0, 1).reshape(T, nh * hd)
        x = x + W[p + "self_attn_layer_scale.scale"] * lin(a, W[p + "self_attn.o_proj.weight"])
        n = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        m = torch.nn.functional.silu(lin(n, W[p + "mlp.gate_proj.weight"])) * lin(n, W[p + "mlp.up_proj.weight"])
        x = x + W[p + "mlp_layer_scale.scale"] * lin(m, W[p + "mlp.down_proj.weight"])
    x = rms_norm(x, W[pt + "norm.weight"], eps)
    x = lin(x, W[pt + "output_proj.weight"], W[pt + "output_proj.bias"]).T   # [L, T]
    for jx, r in enumerate(g["upsampling_ratios"]):
        p = "decoder.upsample.%d." % jx
        x = trans_conv(x, W[p + "0.conv.weight"], W[p + "0.conv.bias"], r)
        y = causal_depthwise(x, W[p + "1.dwconv.conv.weight"], W[p + "1.dwconv.conv.bias"]).T   # [T, L]
        y = torch.nn.functional.layer_norm(y, (y.shape[1],), W[p + "1.norm.weight"], W[p + "1.norm.bias"], 1e-6)
        y = torch.nn.functional.gelu(lin(y, W[p + "1.pwconv1.weight"], W[p + "1.pwconv1.bias"]))
        y = lin(y, W[p + "1.pwconv2.weight"], W[p + "1.pwconv2.bias"])
        x = x + (W[p + "1.gamma"] * y).T
    x = causal_conv(x, W["decoder.decoder.0.conv.weight"], W["decoder.decoder.0.conv.bias"])
    for bi, st in enumerate(g["upsample_rates"]):
        p = "decoder.decoder.%d.block." % (1 + bi)
        x = snake(x, W[p + "0.alpha"], W[p + "0.beta"])
        x = trans_conv(x, W[p + "1.conv.weight"], W[p + "1.conv.bias"], st)
        for u, d in enumerate((1, 3, 9)):
            r = p + "%d." % (2 + u)
            y = snake(x, W[r + "act1.alpha"], W[r + "act1.beta"])
            y = causal_conv(y, W[r + "conv1.conv.weight"], W[r + "conv1.conv.bias"], d)
            y = snake(y, W[r + "act2.alpha"], W[r + "act2.beta"])
            y = causal_conv(y, W[r + "conv2.conv.weight"], W[r + "conv2.conv.bias"])
            x = x + y
    nb = len(g["upsample_rates"])
    x = snake(x, W["decoder.decoder.%d.alpha" % (1 + nb)], W["decoder.decoder.%d.beta" % (1 + nb)])
    x = causal_conv(x, W["decoder.decoder.%d.conv.weight" % (2 + nb)], W["decoder.decoder.%d.conv.bias" % (2 + nb)])
    assert x.shape == (1, T * spf(g)), x.shape
    return x[0]


def config_json(g):
    dec = dict(g)
    dec.update(attention_bias=False, attention_dropout=0.0, hidden_act="silu", layer_scale_initial_scale=0.01,
               max_position_embeddings=8000, num_key_value_heads=g["num_attention_heads"], num_quantizers=NQ,
               num_semantic_quantizers=1)
    return {"architectures": ["Qwen3TTSTokenizerV2Model"], "model_type": "qwen3_tts_tokenizer_12hz",
            "input_sample_rate": 24000, "output_sample_rate": 24000, "decode_upsample_rate": spf(g),
            "encode_downsample_rate": spf(g), "encoder_valid_num_quantizers": NQ, "decoder_config": dec}


def main():
    torch.set_num_threads(1)
    os.makedirs(SUITE, exist_ok=True)
    gen = torch.Generator().manual_seed(20261204)
    weights = {}
    for name, g in GEOMETRIES.items():
        w = random_weights(g, gen)
        # Scale the last conv so the pre-clamp output has an RMS near 0.5: most samples stay
        # inside [-1, 1], a few are clamped.
        probe = torch.randint(0, g["codebook_size"], (8, NQ), generator=gen)
        nb = len(g["upsample_rates"])
        wn, bn = "decoder.decoder.%d.conv.weight" % (2 + nb), "decoder.decoder.%d.conv.bias" % (2 + nb)
        w[bn] = torch.zeros_like(w[bn])
        rms = forward(g, w, probe, torch.float64).pow(2).mean().sqrt().item()
        w[wn] = (w[wn].to(torch.float64) * (0.5 / rms)).to(torch.float32)
        w[bn] = torch.tensor([0.03], dtype=torch.float32)
        weights[name] = w
        d = os.path.join(SUITE, "models", name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(config_json(g), f, indent=1)
            f.write("\n")
        write_safetensors(os.path.join(d, "model.safetensors"), w)

    cases = [
        ("tiny", 12, None, "random codes, one call, window 5 crossed"),
        ("tiny", 12, [1, 3, 2, 6], "random codes pushed 1+3+2+6"),
        ("tiny", 9, [1] * 9, "random codes pushed one frame at a time"),
        ("tiny", 3, None, "three frames (inside the window)"),
        ("tiny", 7, "extremes", "codes 0 and codebook_size-1 only"),
        ("tiny-b", 10, None, "second geometry, one call, window 3"),
        ("tiny-b", 10, [4, 1, 5], "second geometry pushed 4+1+5"),
        ("tiny-b", 1, None, "a single frame"),
        ("tiny-q", 10, None, "int8-width geometry, fp32, one call"),
        ("tiny-q", 10, None, "int8", "int8, one call"),
        ("tiny-q", 10, [3, 3, 4], "int8", "int8 pushed 3+3+4"),
        ("tiny-q", 10, [5, 5], "mixed", "mixed (int8 for a subset of the layers; held to the int8 bar) pushed 5+5"),
    ]
    for idx, cs in enumerate(cases):
        model, T, pushes = cs[:3]
        prec, desc = ("fp32", cs[3]) if len(cs) == 4 else (cs[3], cs[4])
        g = GEOMETRIES[model]
        if pushes == "extremes":
            codes = torch.randint(0, 2, (T, NQ), generator=gen) * (g["codebook_size"] - 1)
            pushes = None
        else:
            codes = torch.randint(0, g["codebook_size"], (T, NQ), generator=gen)
        ref64 = forward(g, weights[model], codes, torch.float64)
        ref32 = forward(g, weights[model], codes, torch.float32).to(torch.float64)
        err = (ref32.clamp(-1, 1) - ref64.clamp(-1, 1)).abs().max().item()
        atol = max(TOL_FACTOR * err, 1e-6)
        name = "codec_%s_%d_%s" % (model, T, "call" if pushes is None else "push" + "-".join(map(str, pushes)))
        if prec != "fp32":
            name += "_" + prec
        name = name[:60]
        case = {"kind": "codec", "name": name,
                "description": "%s; %d frames; fp32-vs-fp64 max error %.3g" % (desc, T, err),
                "model": "models/" + model, "precision": prec,
                "codes": {"tensor": "codes"}, "expect_audio": {"tensor": "expect_audio"},
                "atol": float("%.3g" % atol), "rtol": 0.0}
        if prec != "fp32":
            QUANT["on"] = True
            refq = forward(g, weights[model], codes, torch.float64)
            QUANT["on"] = False
            a, q = ref64.clamp(-1, 1), refq.clamp(-1, 1)
            snr = 10 * math.log10(a.pow(2).sum().item() / (a - q).pow(2).sum().item())
            del case["atol"], case["rtol"]
            case["min_snr_db"] = round(snr - SNR_MARGIN_DB, 1)
            case["description"] = "%s; %d frames; simulated int8 SNR %.1f dB, bar %.1f dB" % (desc, T, snr, snr - SNR_MARGIN_DB)
        if pushes is not None:
            case["pushes"] = pushes
        with open(os.path.join(SUITE, name + ".json"), "w") as f:
            json.dump(case, f, indent=1)
            f.write("\n")
        write_safetensors(os.path.join(SUITE, name + ".safetensors"),
                          {"codes": codes.to(torch.int64), "expect_audio": ref64.clamp(-1, 1).to(torch.float32)})
        clamped = (ref64.abs() > 1).float().mean().item()
        print("%-44s err32 %.3g  atol %.3g  rms %.3f  clamped %.1f%%" % (
            name, err, atol, ref64.clamp(-1, 1).pow(2).mean().sqrt().item(), 100 * clamped))


if __name__ == "__main__":
    main()
