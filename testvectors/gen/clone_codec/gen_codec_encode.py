"""Writes the `codec_encode` conformance suite (testvectors/suites/codec_encode/).

An independent reference of the Qwen3-TTS 12 Hz codec *encoder* (the Mimi
encoder half of speech_tokenizer/), written from the architecture description
(shared research wave3.md section 3.3 and docs/CLONE_VECTORS.md), not from any
project's code:

  samples -> SEANet: causal conv (kernel_size), then per stride r (the
  upsampling_ratios reversed) num_residual_layers residual units
  x + conv_k1(ELU(conv_k(ELU(x), dilation growth^j))) (inner width dim/compress),
  ELU and a conv of kernel 2r, stride r (width doubles); ELU and a last conv
  (last_kernel_size) to hidden_size. Every conv is causal: all of
  ((k-1)*d+1) - stride zeros on the left, and on the right only the zeros that
  make the length reach a whole number of strides.
  -> transformer: num_hidden_layers pre-LayerNorm layers, attention (RoPE
  rotate-half, causal, a query sees the last sliding_window positions
  including itself) and a GELU (erf) MLP, each branch times its LayerScale
  and added back; no final norm.
  -> downsample: conv kernel 4, stride 2, no bias, replicate padding.
  -> split RVQ: codebook 0 from the semantic RVQ, 1..15 from the acoustic
  RVQ; each RVQ projects the same latent (input_proj, k=1, no bias) and runs
  a residual chain: nearest codeword by squared euclidean distance (ties to
  the lowest index), residual -= codeword; codeword = embed_sum /
  max(cluster_usage, 1e-5).

The expectation is the float64 forward. Each case is also run in float32;
margin_min is TOL_FACTOR times the largest |d32 - d64| of any codeword
distance along the reference's choices, so an fp32 implementation that sums in
another order passes and a wrong one does not.

Run by hand:  /usr/bin/python3 testvectors/gen/clone_codec/gen_codec_encode.py
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from safetensors_io import write_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.normpath(os.path.join(HERE, "..", "..", "suites", "codec_encode"))
NQ = 16
TOL_FACTOR = 16.0

GEOMETRIES = {
    # strides 3 then 2, two residual units per stride (dilations 1, 2), head_dim*heads != hidden,
    # a window of 4 encoder frames (6 samples each): most cases cross it; 12 samples per frame.
    "tiny": dict(num_filters=4, kernel_size=5, last_kernel_size=3, residual_kernel_size=3,
                 num_residual_layers=2, dilation_growth_rate=2, compress=2, upsampling_ratios=[2, 3],
                 hidden_size=16, intermediate_size=24, num_hidden_layers=2, num_attention_heads=2,
                 head_dim=6, norm_eps=1e-5, rope_theta=10000.0, sliding_window=4, codebook_size=24,
                 codebook_dim=8, num_quantizers=18),
    # one stride of 5, one residual unit, three layers, a window of 64 (every case inside it),
    # even kernels; 10 samples per frame.
    "tiny-b": dict(num_filters=6, kernel_size=4, last_kernel_size=2, residual_kernel_size=2,
                   num_residual_layers=1, dilation_growth_rate=2, compress=3, upsampling_ratios=[5],
                   hidden_size=12, intermediate_size=20, num_hidden_layers=3, num_attention_heads=3,
                   head_dim=4, norm_eps=1e-5, rope_theta=10000.0, sliding_window=64, codebook_size=40,
                   codebook_dim=6, num_quantizers=16),
}


def config_json(g):
    enc = dict(g)
    enc.update(audio_channels=1, num_key_value_heads=g["num_attention_heads"],
               vector_quantization_hidden_dimension=g["codebook_dim"], num_semantic_quantizers=1,
               sampling_rate=24000, use_causal_conv=True, pad_mode="constant", use_conv_shortcut=False,
               hidden_act="gelu", attention_bias=False, use_streaming=False, layer_scale_initial_scale=0.01,
               max_position_embeddings=8000, trim_right_ratio=1.0)
    spf = 2 * math.prod(g["upsampling_ratios"])
    return {"architectures": ["Qwen3TTSTokenizerV2Model"], "model_type": "qwen3_tts_tokenizer_12hz",
            "encoder_valid_num_quantizers": NQ, "input_sample_rate": 24000, "output_sample_rate": 24000,
            "encode_downsample_rate": spf, "encoder_config": enc}


def weights(g, gen):
    """Every tensor of the encoder half, random (float32), codebooks set later by calibrate."""
    W = {}

    def rnd(*shape, scale=1.0):
        return (torch.randn(*shape, generator=gen, dtype=torch.float64) * scale).float()

    def conv(name, out, inp, k, bias=True):
        W[name + ".weight"] = rnd(out, inp, k, scale=1.0 / math.sqrt(inp * k))
        if bias:
            W[name + ".bias"] = rnd(out, scale=0.1)

    se = "encoder.encoder.layers."
    nf = g["num_filters"]
    conv(se + "0.conv", nf, 1, g["kernel_size"])
    idx, ch = 1, nf
    for r in reversed(g["upsampling_ratios"]):
        for _ in range(g["num_residual_layers"]):
            conv(f"{se}{idx}.block.1.conv", ch // g["compress"], ch, g["residual_kernel_size"])
            conv(f"{se}{idx}.block.3.conv", ch, ch // g["compress"], 1)
            idx += 1
        idx += 1
        conv(f"{se}{idx}.conv", 2 * ch, ch, 2 * r)
        idx += 1
        ch *= 2
    idx += 1
    conv(f"{se}{idx}.conv", g["hidden_size"], ch, g["last_kernel_size"])
    H, A, I = g["hidden_size"], g["num_attention_heads"] * g["head_dim"], g["intermediate_size"]
    for i in range(g["num_hidden_layers"]):
        p = f"encoder.encoder_transformer.layers.{i}."
        for ln in ("input_layernorm", "post_attention_layernorm"):
            W[p + ln + ".weight"] = (1 + rnd(H, scale=0.1))
            W[p + ln + ".bias"] = rnd(H, scale=0.1)
        for n, (o, ii) in {"q": (A, H), "k": (A, H), "v": (A, H), "o": (H, A)}.items():
            W[p + f"self_attn.{n}_proj.weight"] = rnd(o, ii, scale=1.0 / math.sqrt(ii))
        W[p + "self_attn_layer_scale.scale"] = 0.3 + rnd(H, scale=0.05)
        W[p + "mlp.fc1.weight"] = rnd(I, H, scale=1.0 / math.sqrt(H))
        W[p + "mlp.fc2.weight"] = rnd(H, I, scale=1.0 / math.sqrt(I))
        W[p + "mlp_layer_scale.scale"] = 0.3 + rnd(H, scale=0.05)
    W["encoder.downsample.conv.weight"] = rnd(H, H, 4, scale=1.0 / math.sqrt(4 * H))
    Q = g["codebook_dim"]
    for grp in ("semantic", "acoustic"):
        p = f"encoder.quantizer.{grp}_residual_vector_quantizer."
        W[p + "input_proj.weight"] = rnd(Q, H, 1, scale=1.0 / math.sqrt(H))
        W[p + "output_proj.weight"] = rnd(H, Q, 1, scale=1.0 / math.sqrt(Q))  # decode only: unread
    return W


def codebook_names(g):
    out = [("encoder.quantizer.semantic_residual_vector_quantizer.layers.0.codebook.", 0)]
    for k in range(g["num_quantizers"] - 1):
        out.append((f"encoder.quantizer.acoustic_residual_vector_quantizer.layers.{k}.codebook.", k + 1))
    return out


def calibrate(g, W, gen, latent):
    """Random codebooks at the scale of the residual each one sees (so choices are not trivial)."""
    N, Q = g["codebook_size"], g["codebook_dim"]
    for grp, start in (("semantic", 0), ("acoustic", 1)):
        pw = W[f"encoder.quantizer.{grp}_residual_vector_quantizer.input_proj.weight"].double()[:, :, 0]
        std = float((latent @ pw.T).std())
        for p, k in codebook_names(g):
            if (k == 0) != (grp == "semantic"):
                continue
            scale = std * (0.75 ** max(0, k - start))
            use = (0.5 + torch.rand(N, generator=gen, dtype=torch.float64)).float()
            use[N // 3] = 1e-7  # clamped to 1e-5: a far codeword, never chosen
            emb = torch.randn(N, Q, generator=gen, dtype=torch.float64) * scale
            W[p + "embed_sum"] = (emb * use.double()[:, None]).float()
            W[p + "cluster_usage"] = use
            W[p + "initialized"] = torch.ones(1)


def causal_conv(x, w, b, stride=1, dilation=1, mode="constant"):
    """x [C, L] -> [O, ceil(L/stride)]: left pad (k-1)*d+1-stride, right pad to whole strides."""
    k = w.shape[2]
    keff = (k - 1) * dilation + 1
    pt = keff - stride
    L = x.shape[1]
    n_frames = math.ceil((L - keff + pt) / stride) + 1
    ideal = (n_frames - 1) * stride + keff - pt
    extra = ideal - L
    xp = F.pad(x[None], (pt, extra), mode=mode)[0] if mode == "replicate" else F.pad(x, (pt, extra))
    return F.conv1d(xp[None], w, b, stride=stride, dilation=dilation)[0]


def elu(x):
    return torch.where(x > 0, x, torch.expm1(x))


def seanet(g, W, x):
    se = "encoder.encoder.layers."
    h = causal_conv(x[None], W[se + "0.conv.weight"], W[se + "0.conv.bias"])
    idx = 1
    for r in reversed(g["upsampling_ratios"]):
        for j in range(g["num_residual_layers"]):
            p = f"{se}{idx}.block."
            d = g["dilation_growth_rate"] ** j
            t = causal_conv(elu(h), W[p + "1.conv.weight"], W[p + "1.conv.bias"], dilation=d)
            t = causal_conv(elu(t), W[p + "3.conv.weight"], W[p + "3.conv.bias"])
            h = h + t
            idx += 1
        idx += 1
        h = causal_conv(elu(h), W[f"{se}{idx}.conv.weight"], W[f"{se}{idx}.conv.bias"], stride=r)
        idx += 1
    idx += 1
    return causal_conv(elu(h), W[f"{se}{idx}.conv.weight"], W[f"{se}{idx}.conv.bias"])


def rope(x, theta):
    """x [T, heads, hd]: rotate-half RoPE at positions 0..T-1."""
    T, _, hd = x.shape
    inv = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=x.dtype) / hd))
    ang = torch.arange(T, dtype=x.dtype)[:, None] * inv[None, :]
    ang = torch.cat([ang, ang], dim=-1)[:, None, :]
    rot = torch.cat([-x[..., hd // 2:], x[..., :hd // 2]], dim=-1)
    return x * torch.cos(ang) + rot * torch.sin(ang)


def transformer(g, W, h):
    """h [T, H] -> [T, H]."""
    T, H = h.shape
    nh, hd, win = g["num_attention_heads"], g["head_dim"], g["sliding_window"]
    i = torch.arange(T)
    allowed = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - win)
    for li in range(g["num_hidden_layers"]):
        p = f"encoder.encoder_transformer.layers.{li}."
        t = F.layer_norm(h, (H,), W[p + "input_layernorm.weight"], W[p + "input_layernorm.bias"], g["norm_eps"])
        q = (t @ W[p + "self_attn.q_proj.weight"].T).view(T, nh, hd)
        k = (t @ W[p + "self_attn.k_proj.weight"].T).view(T, nh, hd)
        v = (t @ W[p + "self_attn.v_proj.weight"].T).view(T, nh, hd)
        q, k = rope(q, g["rope_theta"]), rope(k, g["rope_theta"])
        s = torch.einsum("thd,uhd->htu", q, k) / math.sqrt(hd)
        s = s.masked_fill(~allowed[None], float("-inf"))
        a = torch.einsum("htu,uhd->thd", torch.softmax(s, dim=-1), v).reshape(T, nh * hd)
        h = h + (a @ W[p + "self_attn.o_proj.weight"].T) * W[p + "self_attn_layer_scale.scale"]
        t = F.layer_norm(h, (H,), W[p + "post_attention_layernorm.weight"], W[p + "post_attention_layernorm.bias"],
                         g["norm_eps"])
        f = t @ W[p + "mlp.fc1.weight"].T
        f = 0.5 * f * (1 + torch.erf(f / math.sqrt(2)))
        h = h + (f @ W[p + "mlp.fc2.weight"].T) * W[p + "mlp_layer_scale.scale"]
    return h


def latent(g, W, audio):
    """audio [N] -> downsampled latent [T, H]."""
    h = seanet(g, W, audio)  # [H, L]
    h = transformer(g, W, h.T.contiguous())  # [L, H]
    z = causal_conv(h.T.contiguous(), W["encoder.downsample.conv.weight"], None, stride=2, mode="replicate")
    return z.T.contiguous()


def codewords(W, p, dtype):
    use = W[p + "cluster_usage"].to(dtype).clamp(min=1e-5)
    return W[p + "embed_sum"].to(dtype) / use[:, None]


def quantize(g, W, z, forced=None):
    """z [T, H] -> codes [T, 16], margins [T, 16], distance rows per choice.

    With forced (codes), the residual chain follows those codes instead of its own choices."""
    T = z.shape[0]
    dt = z.dtype
    codes = torch.zeros(T, NQ, dtype=torch.int64)
    margin = torch.zeros(T, NQ, dtype=torch.float64)
    dists = []
    names = codebook_names(g)
    res = {}
    for grp in ("semantic", "acoustic"):
        pw = W[f"encoder.quantizer.{grp}_residual_vector_quantizer.input_proj.weight"].to(dt)[:, :, 0]
        res[grp] = z @ pw.T
    for p, k in names[:NQ]:
        grp = "semantic" if k == 0 else "acoustic"
        e = codewords(W, p, dt)
        r = res[grp]
        d = ((r[:, None, :] - e[None, :, :]) ** 2).sum(-1)  # [T, N]
        dists.append(d)
        for t in range(T):
            row = d[t]
            m = row.min()
            first = int((row == m).nonzero()[0])  # ties: the lowest index
            codes[t, k] = first
            rest = torch.cat([row[:first], row[first + 1:]])
            margin[t, k] = float(rest.min() - m)
        use = codes[:, k] if forced is None else forced[:, k]
        res[grp] = r - e[use]
    return codes, margin, dists


def run_case(name, geom, W, audio, desc, cases, tensors_out):
    g = GEOMETRIES[geom]
    a64 = audio.double()
    z64 = latent(g, {k: v.double() for k, v in W.items()}, a64)
    codes, margin, d64 = quantize(g, {k: v.double() for k, v in W.items()}, z64)
    z32 = latent(g, W, audio.float())
    codes32, _, d32 = quantize(g, W, z32, forced=codes)
    delta = max(float((a.double() - b).abs().max()) for a, b in zip(d32, d64))
    spf = 2 * math.prod(g["upsampling_ratios"])
    T = math.ceil(len(audio) / spf)
    assert codes.shape[0] == T, (codes.shape, T)
    agree = float((codes32 == codes).double().mean())
    margin_min = max(TOL_FACTOR * delta, 1e-6)
    case = {
        "kind": "codec_encode", "name": name,
        "description": f"{desc}; {len(audio)} samples, {T} frames; fp32 torch agrees on {agree:.3f} of the codes, "
                       f"largest fp32 distance error {delta:.3g}",
        "model": f"models/{geom}",
        "audio": {"tensor": "audio"},
        "expect_codes": {"tensor": "expect_codes"},
        "expect_margin": {"tensor": "expect_margin"},
        "margin_min": margin_min,
        "min_agreement": round(max(0.5, agree - 0.1), 3),
    }
    cases.append(case)
    tensors_out[name] = {"audio": audio.float().contiguous(), "expect_codes": codes,
                         "expect_margin": margin.float()}


def is_bf16_weight(name):
    """The tensors omni's bf16 encoder stores in bfloat16: conv kernels, projections, the MLP, the downsample."""
    return name.endswith(".weight") and "layernorm" not in name


def run_bf16_case(name, geom, W, audio, desc, cases, tensors_out):
    """A reduced-precision case: the bar is the agreement of a float64 forward on bf16-rounded weights."""
    g = GEOMETRIES[geom]
    W64 = {k: v.double() for k, v in W.items()}
    Wbf = {k: (v.bfloat16().double() if is_bf16_weight(k) else v) for k, v in W64.items()}
    codes, _, _ = quantize(g, W64, latent(g, W64, audio.double()))
    cbf, _, _ = quantize(g, Wbf, latent(g, Wbf, audio.double()))
    agree = float((cbf == codes).double().mean())
    case = {
        "kind": "codec_encode", "name": name,
        "description": f"{desc}; bf16 weights: a float64 forward on bf16-rounded kernels agrees on {agree:.3f} "
                       f"of the codes; the bar is that minus 0.15",
        "model": f"models/{geom}", "precision": "bf16",
        "audio": {"tensor": "audio"},
        "expect_codes": {"tensor": "expect_codes"},
        "min_agreement": round(max(0.2, agree - 0.15), 3),
    }
    cases.append(case)
    tensors_out[name] = {"audio": audio.float().contiguous(), "expect_codes": codes}


def signal(gen, n, kind):
    t = torch.arange(n, dtype=torch.float64) / 24000.0
    if kind == "silence":
        return torch.zeros(n)
    if kind == "noise":
        return (torch.randn(n, generator=gen, dtype=torch.float64) * 0.3).float()
    if kind == "tone":
        return (0.5 * torch.sin(2 * math.pi * 440 * t) + 0.2 * torch.sin(2 * math.pi * 3100 * t)).float()
    if kind == "clipped":
        x = 2.5 * torch.sin(2 * math.pi * 700 * t) + torch.randn(n, generator=gen, dtype=torch.float64) * 0.2
        return x.clamp(-1, 1).float()
    raise ValueError(kind)


def main():
    os.makedirs(SUITE, exist_ok=True)
    for f in os.listdir(SUITE):
        if f.endswith(".json") or f.endswith(".safetensors"):
            os.remove(os.path.join(SUITE, f))
    cases, tensors = [], {}
    plan = {
        "tiny": [(1, "noise", "one sample (one frame, almost all padding)"),
                 (23, "noise", "inside one attention window"),
                 (97, "tone", "odd length, crosses the window"),
                 (300, "silence", "silence"),
                 (481, "clipped", "clipped, one sample past the encoder's 40-frame chunk"),
                 (1001, "noise", "odd length over two chunks"),
                 (1601, "tone", "past the 120 frames the encoder runs through its transformer at a time")],
        "tiny-b": [(7, "tone", "less than a frame"),
                   (389, "noise", "odd length"),
                   (250, "clipped", "clipped"),
                   (160, "silence", "silence")],
    }
    for geom, items in plan.items():
        g = GEOMETRIES[geom]
        gen = torch.Generator().manual_seed(1234 + len(geom))
        W = weights(g, gen)
        calib = signal(gen, 600, "noise").double()
        W64 = {k: v.double() for k, v in W.items()}
        calibrate(g, W, gen, latent(g, W64, calib))
        mdir = os.path.join(SUITE, "models", geom)
        os.makedirs(mdir, exist_ok=True)
        with open(os.path.join(mdir, "config.json"), "w") as f:
            json.dump(config_json(g), f, indent=1)
            f.write("\n")
        write_safetensors(os.path.join(mdir, "model.safetensors"), dict(sorted(W.items())))
        for n, kind, desc in items:
            name = f"codec_encode_{geom}_{n}_{kind}"
            run_case(name, geom, W, signal(gen, n, kind), desc, cases, tensors)
        n = {"tiny": 601, "tiny-b": 301}[geom]
        run_bf16_case(f"codec_encode_{geom}_{n}_noise_bf16", geom, W, signal(gen, n, "noise"),
                      "noise", cases, tensors)
    for c in cases:
        with open(os.path.join(SUITE, c["name"] + ".json"), "w") as f:
            json.dump(c, f, indent=1)
            f.write("\n")
        write_safetensors(os.path.join(SUITE, c["name"] + ".safetensors"), tensors[c["name"]])
    # A refused request: no samples.
    bad = {"kind": "codec_encode", "name": "codec_encode_tiny_empty", "description": "no samples: refused",
           "model": "models/tiny", "audio": [], "expect_error": "no samples"}
    with open(os.path.join(SUITE, bad["name"] + ".json"), "w") as f:
        json.dump(bad, f, indent=1)
        f.write("\n")
    print(f"{len(cases) + 1} cases in {SUITE}")


if __name__ == "__main__":
    main()
