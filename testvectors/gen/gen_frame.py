#!/usr/bin/python3
"""Writes the "frame" suite: whole Qwen3-TTS frames (talker step, codebook-0
sampling under the Qwen3-TTS contract, the code predictor with sampling) on
the toy checkpoints of gen_models.py (suites/models/tiny, tiny-wide).

The reference follows the generation loop of docs/MODEL.md §5 and
docs/TESTVECTORS.md (kind "frame"), written from the formulas, independently
of omni:
  prefill the talker on inputs_embeds; for frame t = 0, 1, ...:
    c0 = sample(codec_head(h)) with the contract: ids outside the codebook
         [0, 64) other than EOS (70) masked, EOS masked while fewer than
         min_tokens frames exist, repetition penalty over earlier c0 only;
         one draw of the full talker vocabulary (96) from the talker's
         generator per frame
    c0 == EOS ends the case (that frame is not emitted)
    code predictor (full causal forward of the growing prefix, positions
    from 0 every frame): rows [h, E_talker[c0], E_0[c1], ..., E_13[c14]];
    c_g = sample(lm_head[g-1](hidden at position g)) with the predictor's
    own generator, one draw of 64 per sub-step, no penalties
    next talker input = E_talker[c0] + sum_g E_{g-1}[c_g]
                        + trailing_text[t] (while it lasts) else tts_pad
Transformers come from gen_models.py (float64 on the bf16 weights read back
from the committed model.safetensors); sampling is gen_sampler.py's vLLM v1
reference_step (float32 logits, exponential race with torch's CPU
generator). Every sampling decision is checked for a margin (race top-2,
top-k boundary) far above float32-vs-float64 logit differences; a case whose
draw comes too close is redrawn with the next seed, so omni's fp32 path must
reproduce the codes exactly.

Run with Debian's python3-torch: /usr/bin/python3 gen_frame.py
"""
import json
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_models as gm  # noqa: E402
import gen_sampler as gs  # noqa: E402

gs.MARGIN = 2e-3  # race near-ties: relative margin far above fp32 logit error
TOPK_MARGIN = 2e-3  # absolute gap between the k-th and (k+1)-th scaled logit

OUT = os.path.join(gm.SUITES, "frame")


def read_safetensors(path):
    """Reads {name: tensor} from a safetensors file (BF16/F32/I64) by hand."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        a, b = h["data_offsets"]
        raw = bytearray(data[a:b])
        if h["dtype"] == "BF16":
            t = torch.frombuffer(raw, dtype=torch.int16).view(torch.bfloat16)
        elif h["dtype"] == "F32":
            t = torch.frombuffer(raw, dtype=torch.float32)
        else:
            t = torch.frombuffer(raw, dtype=torch.int64)
        out[name] = t.reshape(h["shape"]).clone()
    return out


def check_topk(logits, params, hist):
    """Raises Fragile when the top-k boundary (or a greedy argmax) of the processed row is close."""
    k = params.get("top_k", 0)
    t = gs.eff_temp(params)
    greedy = t < 1e-5
    if k <= 0 and not greedy:
        return
    x = logits.clone().to(torch.float32)
    a = params.get("allowed_token_ids")
    if a is not None:
        m = torch.ones(x.shape[0], dtype=torch.bool)
        m[torch.tensor(a)] = False
        x[m] = float("-inf")
    if len(hist) < params.get("min_tokens", 0) and params.get("eos_token_id") is not None:
        x[params["eos_token_id"]] = float("-inf")
    r = params.get("repetition_penalty", 1.0)
    if r != 1.0:
        for tok in set(hist):
            x[tok] = x[tok] / r if x[tok] > 0 else x[tok] * r
    v = torch.sort(x[torch.isfinite(x)], descending=True).values
    if greedy:
        if (v[0] - v[1]).item() < TOPK_MARGIN:
            raise gs.Fragile("greedy near tie")
        return
    v = v / t
    if k < v.shape[0] and (v[k - 1] - v[k]).item() < TOPK_MARGIN:
        raise gs.Fragile("top-k boundary")


def sample(logits, params, hist, gen):
    """One contract-checked draw of one row (logits float64 [V])."""
    row = logits.to(torch.float32)
    check_topk(row, params, hist)
    toks, _ = gs.reference_step(row[None, :], [{"params": params}], [hist], [gen], False)
    return toks[0]


def run_frames(w, cfg, rows, trailing, pad, tparams, pparams, frames):
    """Returns the codes [F, 16] of up to `frames` frames (F < frames: EOS)."""
    t = cfg["talker_config"]
    p = t["code_predictor_config"]
    eos = t["codec_eos_token_id"]
    tcontract = dict(tparams)
    tcontract["allowed_token_ids"] = list(range(gm.PRED_VOCAB)) + [eos]
    tgen = torch.Generator().manual_seed(tparams["seed"])
    pgen = torch.Generator().manual_seed(pparams["seed"])
    E = gm.f64(w, "talker.model.codec_embedding.weight")
    tables = [gm.f64(w, "talker.code_predictor.model.codec_embedding.%d.weight" % g) for g in range(gm.GROUPS - 1)]
    heads = [gm.f64(w, "talker.code_predictor.lm_head.%d.weight" % g) for g in range(gm.GROUPS - 1)]
    head = gm.f64(w, "talker.codec_head.weight")
    proj = lambda e: e
    if "talker.code_predictor.small_to_mtp_projection.weight" in w:
        pw = gm.f64(w, "talker.code_predictor.small_to_mtp_projection.weight")
        pb = gm.f64(w, "talker.code_predictor.small_to_mtp_projection.bias")
        proj = lambda e: e @ pw.T + pb
    seq = rows.clone()
    hist, codes = [], []
    for f in range(frames):
        h = gm.decoder_forward(w, "talker.model.", t, seq)[-1]
        c0 = sample(h @ head.T, tcontract, hist, tgen)
        if c0 == eos:
            break
        hist.append(c0)
        frame = [c0]
        prow = [h, E[c0]]
        for g in range(1, gm.GROUPS):
            ph = gm.decoder_forward(w, "talker.code_predictor.model.", p, proj(torch.stack(prow)))
            c = sample(ph[g] @ heads[g - 1].T, pparams, [], pgen)
            frame.append(c)
            if g < gm.GROUPS - 1:
                prow.append(tables[g - 1][c])
        codes.append(frame)
        nxt = E[c0] + sum(tables[g - 1][frame[g]] for g in range(1, gm.GROUPS))
        nxt = nxt + (trailing[f] if f < trailing.shape[0] else pad)
        seq = torch.cat([seq, nxt[None, :]], 0)
    return codes


def f32(t):
    """Rounds to float32 and back: the case stores float32 inputs."""
    return t.to(torch.float32).to(torch.float64)


def main():
    os.makedirs(OUT, exist_ok=True)
    models = {}
    for m in ("tiny", "tiny-wide"):
        mdir = os.path.join(gm.SUITES, "models", m)
        with open(os.path.join(mdir, "config.json")) as fh:
            cfg = json.load(fh)
        models[m] = (read_safetensors(os.path.join(mdir, "model.safetensors")), cfg)
    talker = {"temperature": 0.9, "top_k": 50, "top_p": 1.0, "repetition_penalty": 1.05, "min_tokens": 2}
    pred = {"temperature": 0.9, "top_k": 50, "top_p": 1.0}
    specs = [
        # name, model, prompt rows, trailing rows, frames, talker overrides, predictor overrides, want EOS
        ("frame_tiny_streaming", "tiny", 9, 3, 10, {}, {}, False),
        ("frame_tiny-wide_nonstreaming", "tiny-wide", 14, 0, 8, {}, {}, False),
        ("frame_tiny_eos", "tiny", 6, 2, 40, {}, {}, True),
        ("frame_tiny_topp_minp", "tiny", 7, 4, 8, {"top_p": 0.8, "min_p": 0.02, "top_k": 0}, {"top_k": 20}, False),
        ("frame_tiny-wide_greedy_talker", "tiny-wide", 5, 1, 8, {"temperature": 0.0}, {}, False),
    ]
    seed = 1000
    for name, m, T, N, frames, tov, pov, want_eos in specs:
        w, cfg = models[m]
        th = cfg["talker_config"]["hidden_size"]
        eos = cfg["talker_config"]["codec_eos_token_id"]
        for attempt in range(500):
            seed += 1
            g = torch.Generator().manual_seed(seed)
            rows = f32(torch.randn(T, th, generator=g, dtype=torch.float64))
            trailing = f32(torch.randn(N, th, generator=g, dtype=torch.float64) * 0.5)
            pad = f32(torch.randn(th, generator=g, dtype=torch.float64) * 0.5)
            tp = dict(talker, **tov)
            tp["seed"], tp["eos_token_id"] = seed, eos
            pp = dict(pred, **pov)
            pp["seed"] = seed + 7919
            try:
                codes = run_frames(w, cfg, rows, trailing, pad, tp, pp, frames)
            except gs.Fragile:
                continue
            if want_eos != (len(codes) < frames):
                continue
            break
        else:
            raise SystemExit("%s: no robust draw in 500 seeds" % name)
        case = {"kind": "frame", "name": name,
                "description": "%d frames of models/%s from a %d-row prefill with %d trailing rows; seed %d (%d redraws)%s" % (
                    frames, m, T, N, seed, attempt, "; EOS sampled after %d frames" % len(codes) if len(codes) < frames else ""),
                "model": "../models/" + m, "precision": "fp32",
                "inputs_embeds": {"tensor": "inputs_embeds"},
                "tts_pad_embed": {"tensor": "tts_pad_embed"},
                "talker_params": tp, "predictor_params": pp, "frames": frames,
                "expect_codes": {"tensor": "expect_codes"}}
        tensors = {"inputs_embeds": rows.to(torch.float32), "tts_pad_embed": pad.to(torch.float32),
                   "expect_codes": torch.tensor(codes, dtype=torch.int64).reshape(len(codes), gm.GROUPS)}
        if N > 0:
            case["trailing_text_embeds"] = {"tensor": "trailing_text_embeds"}
            tensors["trailing_text_embeds"] = trailing.to(torch.float32)
        gm.write_case(OUT, name, case, tensors)
        print(name, len(codes), "frames, seed", seed, "after", attempt, "redraws")


if __name__ == "__main__":
    main()
