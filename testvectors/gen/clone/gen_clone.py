"""Writes the `mel` and `speaker` conformance suites (testvectors/suites/mel/,
testvectors/suites/speaker/) and their tiny Base checkpoints.

An independent reference of the Qwen3-TTS speaker encoder and its log-mel
front end, written from the architecture description (shared research
wave3.md section 3.2 and docs/CLONE_VECTORS.md), not from any project's code:

  mel      reflect pad (n_fft - hop)/2 = 384 each side, frames of 1024 every
           256 with no centring, periodic Hann, |STFT| = sqrt(re^2 + im^2 + 1e-9),
           128 Slaney mels (Slaney scale, area-normalised triangles) 0..12 kHz,
           ln(max(x, 1e-5)).
  speaker  ECAPA-TDNN: TDNN (conv + ReLU), SE-Res2Net blocks (TDNN k1,
           Res2Net: split 0 passes, split i = TDNN(x_i + y_{i-1}), TDNN k1,
           squeeze-excitation on the time mean, residual), MFA (TDNN on the
           concat of the blocks), attentive statistics pooling (cat(x, mean,
           std) -> TDNN -> tanh -> conv -> softmax over time -> weighted mean
           and std, variances clamped at 1e-12), FC conv k1. Every conv is
           "same" padded by reflection.

Run by hand:  /usr/bin/python3 testvectors/gen/clone/gen_clone.py

Every expectation is computed in float64; the same forward in float32
measures how far a correct float32 implementation may land, and atol is
TOL_FACTOR times that (with a floor), so a different summation order passes
and a wrong graph does not. Every tensor of the tiny models is random.
"""

import json
import math
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from safetensors_io import write_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.path.normpath(os.path.join(HERE, "..", "..", "suites"))
TOL_FACTOR = 16.0
SR, N_FFT, HOP, N_MELS, FMAX = 24000, 1024, 256, 128, 12000.0

# Tiny geometries, every field spelled out as tiny configs must.
GEOMETRIES = {
    "tiny-base": dict(mel_dim=128, enc_dim=24, enc_channels=[32, 32, 32, 32, 96],
                      enc_kernel_sizes=[5, 3, 3, 3, 1], enc_dilations=[1, 2, 3, 4, 1],
                      enc_attention_channels=16, enc_res2net_scale=4, enc_se_channels=8,
                      sample_rate=24000),
    # two SE-Res2Net blocks, scale 8, a kernel-3 MFA, other dilations, odd sizes.
    "tiny-base-b": dict(mel_dim=128, enc_dim=13, enc_channels=[48, 48, 48, 40],
                        enc_kernel_sizes=[3, 3, 3, 3], enc_dilations=[1, 2, 5, 2],
                        enc_attention_channels=7, enc_res2net_scale=8, enc_se_channels=5,
                        sample_rate=24000),
}


# ---- the log-mel front end ------------------------------------------------

def hz_to_mel(f):
    f = np.asarray(f, dtype=np.float64)
    lin = f / (200.0 / 3)
    log = 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(f >= 1000.0, log, lin)


def mel_to_hz(m):
    m = np.asarray(m, dtype=np.float64)
    lin = m * (200.0 / 3)
    log = 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0))
    return np.where(m >= 15.0, log, lin)


def slaney_basis():
    """[128, 513] float64: triangles between 130 points equally spaced on the
    Slaney mel scale from 0 to 12 kHz, each scaled by 2 / (f_hi - f_lo)."""
    freqs = np.linspace(0, SR / 2, N_FFT // 2 + 1)
    pts = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(FMAX), N_MELS + 2))
    basis = np.zeros((N_MELS, len(freqs)))
    for i in range(N_MELS):
        lower = (freqs - pts[i]) / (pts[i + 1] - pts[i])
        upper = (pts[i + 2] - freqs) / (pts[i + 2] - pts[i + 1])
        basis[i] = np.maximum(0, np.minimum(lower, upper)) * 2.0 / (pts[i + 2] - pts[i])
    return basis


BASIS = slaney_basis()


def log_mel(x, dtype):
    """x: 1-D float tensor at 24 kHz -> [T, 128] log-mel."""
    y = x.to(dtype)
    pad = (N_FFT - HOP) // 2
    y = F.pad(y[None, None], (pad, pad), mode="reflect")[0, 0]
    n = torch.arange(N_FFT, dtype=torch.float64)
    win = (0.5 - 0.5 * torch.cos(2 * math.pi * n / N_FFT)).to(dtype)  # periodic Hann
    spec = torch.stft(y, N_FFT, hop_length=HOP, win_length=N_FFT, window=win, center=False,
                      normalized=False, onesided=True, return_complex=True)
    mag = torch.sqrt(spec.real ** 2 + spec.imag ** 2 + 1e-9)
    mel = torch.from_numpy(BASIS).to(dtype) @ mag
    return torch.log(torch.clamp(mel, min=1e-5)).T.contiguous()


# ---- the speaker encoder --------------------------------------------------

def tensor_shapes(g):
    ch, ks = g["enc_channels"], g["enc_kernel_sizes"]
    s, L = g["enc_res2net_scale"], len(ch) - 1
    shapes = {}

    def conv(name, out, inp, k):
        shapes["speaker_encoder." + name + ".weight"] = [out, inp, k]
        shapes["speaker_encoder." + name + ".bias"] = [out]

    conv("blocks.0.conv", ch[0], g["mel_dim"], ks[0])
    cat = 0
    for i in range(1, L):
        conv(f"blocks.{i}.tdnn1.conv", ch[i], ch[i - 1], 1)
        for j in range(s - 1):
            conv(f"blocks.{i}.res2net_block.blocks.{j}.conv", ch[i] // s, ch[i] // s, ks[i])
        conv(f"blocks.{i}.tdnn2.conv", ch[i], ch[i], 1)
        conv(f"blocks.{i}.se_block.conv1", g["enc_se_channels"], ch[i], 1)
        conv(f"blocks.{i}.se_block.conv2", ch[i], g["enc_se_channels"], 1)
        cat += ch[i]
    conv("mfa.conv", ch[L], cat, ks[L])
    conv("asp.tdnn.conv", g["enc_attention_channels"], 3 * ch[L], 1)
    conv("asp.conv", ch[L], g["enc_attention_channels"], 1)
    conv("fc", g["enc_dim"], 2 * ch[L], 1)
    return shapes


def random_weights(g, seed):
    gen = torch.Generator().manual_seed(seed)
    w = {}
    for name, shape in tensor_shapes(g).items():
        fan = shape[1] * shape[2] if len(shape) == 3 else 1
        scale = 1.0 / math.sqrt(fan) if len(shape) == 3 else 0.2
        # a larger scale on the attention path so its softmax is far from uniform
        if "asp." in name:
            scale *= 4
        w[name] = ((torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1) * scale).to(torch.float32)
    return w


def same_conv(x, w, b, dilation):
    """Conv1d with padding="same" in reflect mode: (k-1)*d split floor/ceil."""
    k = w.shape[2]
    total = (k - 1) * dilation
    if total:
        x = F.pad(x, (total // 2, total - total // 2), mode="reflect")
    return F.conv1d(x, w, b, dilation=dilation)


def encoder(mel, g, wts, dtype):
    """mel [T, 128] -> embedding [enc_dim]."""
    W = {k: v.to(dtype) for k, v in wts.items()}
    p = "speaker_encoder."

    def tdnn(x, name, d=1):
        return torch.relu(same_conv(x, W[p + name + ".weight"], W[p + name + ".bias"], d))

    ch, dil, s = g["enc_channels"], g["enc_dilations"], g["enc_res2net_scale"]
    L = len(ch) - 1
    x = mel.to(dtype).T[None]  # [1, 128, T]
    x = tdnn(x, "blocks.0.conv", dil[0])
    outs = []
    for i in range(1, L):
        res = x
        h = tdnn(x, f"blocks.{i}.tdnn1.conv")
        parts, prev = [], None
        for j, part in enumerate(torch.chunk(h, s, dim=1)):
            if j == 0:
                y = part
            else:
                y = tdnn(part if j == 1 else part + prev, f"blocks.{i}.res2net_block.blocks.{j - 1}.conv", dil[i])
            parts.append(y)
            prev = y
        h = tdnn(torch.cat(parts, dim=1), f"blocks.{i}.tdnn2.conv")
        m = h.mean(dim=2, keepdim=True)
        m = torch.relu(F.conv1d(m, W[p + f"blocks.{i}.se_block.conv1.weight"], W[p + f"blocks.{i}.se_block.conv1.bias"]))
        m = torch.sigmoid(F.conv1d(m, W[p + f"blocks.{i}.se_block.conv2.weight"], W[p + f"blocks.{i}.se_block.conv2.bias"]))
        x = h * m + res
        outs.append(x)
    x = tdnn(torch.cat(outs, dim=1), "mfa.conv", dil[L])
    T = x.shape[2]

    def stats(w):
        mean = (w * x).sum(dim=2)
        std = torch.sqrt((w * (x - mean[:, :, None]) ** 2).sum(dim=2).clamp(min=1e-12))
        return mean, std

    mean, std = stats(torch.full_like(x, 1.0 / T))
    att = torch.cat([x, mean[:, :, None].expand(-1, -1, T), std[:, :, None].expand(-1, -1, T)], dim=1)
    att = torch.tanh(tdnn(att, "asp.tdnn.conv"))
    att = F.conv1d(att, W[p + "asp.conv.weight"], W[p + "asp.conv.bias"])
    att = torch.softmax(att, dim=2)
    mean, std = stats(att)
    pooled = torch.cat([mean, std], dim=1)[:, :, None]
    out = F.conv1d(pooled, W[p + "fc.weight"], W[p + "fc.bias"])
    return out[0, :, 0]


# ---- inputs -----------------------------------------------------------------

def signal(kind, n, seed):
    gen = torch.Generator().manual_seed(seed)
    t = torch.arange(n, dtype=torch.float64) / SR
    if kind == "silence":
        return torch.zeros(n)
    if kind == "noise":
        return (torch.randn(n, generator=gen, dtype=torch.float64) * 0.2).float()
    voice = sum(a * torch.sin(2 * math.pi * f * t + ph) for a, f, ph in
                [(0.4, 140.0, 0.3), (0.25, 280.0, 1.0), (0.15, 1250.0, 2.0), (0.05, 3900.0, 0.5), (0.02, 9000.0, 0.1)])
    voice = voice * (0.6 + 0.4 * torch.sin(2 * math.pi * 3.0 * t))
    voice = voice + 0.01 * torch.randn(n, generator=gen, dtype=torch.float64)
    if kind == "clipped":
        return torch.clamp(voice * 4.0, -1.0, 1.0).float()  # hard clipping at full scale
    return voice.float()


def analytic_voice(n, rate):
    """A band-limited voiced signal (every component below 4 kHz) sampled at rate."""
    t = torch.arange(n, dtype=torch.float64) / rate
    v = sum(a * torch.sin(2 * math.pi * f * t + ph) for a, f, ph in
            [(0.4, 140.0, 0.3), (0.25, 280.0, 1.0), (0.15, 1250.0, 2.0), (0.05, 3900.0, 0.5)])
    return v * (0.6 + 0.4 * torch.sin(2 * math.pi * 3.0 * t))


def write_case(suite, name, case, tensors):
    os.makedirs(suite, exist_ok=True)
    if tensors:
        write_safetensors(os.path.join(suite, name + ".safetensors"), tensors)
    with open(os.path.join(suite, name + ".json"), "w") as f:
        json.dump(case, f, indent=1)
        f.write("\n")


def tol(want, got32, floor):
    return max(TOL_FACTOR * float((want - got32.double()).abs().max()), floor)


def gen_mel():
    suite = os.path.join(SUITES, "mel")
    shutil.rmtree(suite, ignore_errors=True)
    for kind, n, seed in [("noise", 1000, 1), ("voice", 5119, 2), ("silence", 2048, 3), ("clipped", 3001, 4),
                          ("voice", 385, 5), ("noise", 4096, 6)]:
        x = signal(kind, n, seed)
        want = log_mel(x.double(), torch.float64)
        got32 = log_mel(x, torch.float32)
        name = f"mel_{kind}_{n}"
        write_case(suite, name, {
            "kind": "mel", "name": name,
            "description": f"{kind} signal of {n} samples ({want.shape[0]} frames), float64 reference",
            "audio": {"tensor": "audio"}, "expect_mel": {"tensor": "expect_mel"},
            "atol": tol(want, got32, 1e-5),
        }, {"audio": x, "expect_mel": want.float()})
    write_case(suite, "mel_too_short_384", {
        "kind": "mel", "name": "mel_too_short_384",
        "description": "384 samples cannot be reflected by 384 on each side",
        "audio": [0.0] * 384, "expect_error": "too short"}, None)


def gen_speaker():
    suite = os.path.join(SUITES, "speaker")
    shutil.rmtree(suite, ignore_errors=True)
    models = {}
    for i, (mname, g) in enumerate(GEOMETRIES.items()):
        d = os.path.join(suite, "models", mname)
        os.makedirs(d)
        cfg = {"architectures": ["Qwen3TTSForConditionalGeneration"], "tts_model_type": "base",
               "speaker_encoder_config": g}
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f, indent=1)
            f.write("\n")
        w = random_weights(g, 100 + i)
        write_safetensors(os.path.join(d, "model.safetensors"), w)
        models[mname] = w
    nb = os.path.join(suite, "models", "not-base")
    os.makedirs(nb)
    with open(os.path.join(nb, "config.json"), "w") as f:
        json.dump({"tts_model_type": "custom_voice",
                   "speaker_encoder_config": GEOMETRIES["tiny-base"]}, f, indent=1)
        f.write("\n")

    for mname, kind, n, seed in [("tiny-base", "voice", 4001, 11), ("tiny-base", "noise", 1280, 12),
                                 ("tiny-base", "silence", 3000, 13), ("tiny-base", "clipped", 6143, 14),
                                 ("tiny-base-b", "voice", 5555, 15), ("tiny-base-b", "noise", 1537, 16)]:
        g = GEOMETRIES[mname]
        x = signal(kind, n, seed)
        want = encoder(log_mel(x.double(), torch.float64), g, models[mname], torch.float64)
        got32 = encoder(log_mel(x, torch.float32), g, models[mname], torch.float32)
        a = tol(want, got32, 1e-6)
        cos = float(torch.dot(want, got32.double()) / (want.norm() * got32.double().norm()))
        name = f"speaker_{mname}_{kind}_{n}"
        write_case(suite, name, {
            "kind": "speaker", "name": name,
            "description": f"{kind} signal of {n} samples through {mname}, float64 reference "
                           f"(float32 torch: max |diff| {a / TOL_FACTOR:.3g}, cosine {cos:.9f})",
            "model": f"models/{mname}", "audio": {"tensor": "audio"},
            "expect_embedding": {"tensor": "expect_embedding"},
            "atol": a, "rtol": 1e-5, "min_cosine": 0.99999,
        }, {"audio": x, "expect_embedding": want.float()})
    # Resampled input: the case's audio is the signal sampled at 16 or 44.1 kHz; the
    # reference embeds the same band-limited signal sampled at 24 kHz directly. What an
    # ideal resampler cannot recover is the signal beyond the clip's ends (zero there),
    # so min_cosine is an allowance for the edges, not a measured float32 error.
    for rate, n in [(16000, 4000), (44100, 7350)]:
        g = GEOMETRIES["tiny-base"]
        x = analytic_voice(n, rate).float()
        x24 = analytic_voice(n * SR // rate, SR)
        want = encoder(log_mel(x24, torch.float64), g, models["tiny-base"], torch.float64)
        name = f"speaker_tiny-base_resampled_{rate}"
        write_case(suite, name, {
            "kind": "speaker", "name": name,
            "description": f"a band-limited voice sampled at {rate} Hz; the reference is the same signal sampled at 24 kHz",
            "model": "models/tiny-base", "audio": {"tensor": "audio"}, "sample_rate": rate,
            "expect_embedding": {"tensor": "expect_embedding"}, "min_cosine": 0.999,
        }, {"audio": x, "expect_embedding": want.float()})
    write_case(suite, "speaker_too_short_1279", {
        "kind": "speaker", "name": "speaker_too_short_1279",
        "description": "1279 samples make 4 mel frames; the kernel-3 dilation-4 reflect padding needs 5",
        "model": "models/tiny-base", "audio": {"tensor": "audio"}, "expect_error": "at least 1280"},
        {"audio": signal("noise", 1279, 17)})
    write_case(suite, "speaker_not_base", {
        "kind": "speaker", "name": "speaker_not_base",
        "description": "a CustomVoice checkpoint has no speaker encoder",
        "model": "models/not-base", "audio": {"tensor": "audio"}, "expect_error": "not a Base model"},
        {"audio": signal("noise", 2000, 18)})


if __name__ == "__main__":
    torch.manual_seed(0)
    gen_mel()
    gen_speaker()
    print("wrote", os.path.join(SUITES, "mel"), "and", os.path.join(SUITES, "speaker"))
