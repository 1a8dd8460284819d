#!/usr/bin/python3
"""Writes the model suites: two toy Qwen3-TTS checkpoints and the "predictor"
and "talker" cases computed on them with PyTorch.

Models (testvectors/suites/models/, Hugging Face layout: config.json,
generation_config.json, model.safetensors in BF16):
  tiny       talker and code predictor 32 wide (identity projection)
  tiny-wide  talker 48 wide, predictor 32 wide (a small_to_mtp_projection,
             the 1.7B shape)
Both keep the real structure (2 + 2 layers, GQA 4:2 heads of 8, SwiGLU,
16 code groups, 15 predictor tables and heads, a text path) with toy
vocabularies (talker 96 ids, 64 per residual codebook, text 32), so the
committed files stay well under 5 MB: omni's own "synth:tiny" keeps the real
vocabularies (151936 text rows) and would not.

The reference is written from the formulas (docs/MODEL.md §3, §5), independently of omni, in float64 on the bf16-rounded weights:
  RMSNorm(x) = x / sqrt(mean(x^2) + eps) * w; pre-norm layers
  x += o(attn(norm(x))), x += down(silu(gate(h)) * up(h)), h = norm(x);
  q and k RMS-normalised per head (q_norm, k_norm) before rotate-half RoPE
  (inv_freq = theta^(-2i/d), theta 1e6); GQA; causal softmax(q k / sqrt(d)) v.
Code predictor per frame (teacher-forced on the case's codes):
  rows [proj(h), proj(E_talker[c0]), proj(E_0[c1]), ..., proj(E_13[c14])],
  logits of codebook g = lm_head[g-1](final_norm(hidden at position g)),
  proj = identity or small_to_mtp_projection (Linear with bias).
Talker: final-norm hidden and codec_head logits after a prefill of T rows
and after each of S decode rows.

Run with Debian's python3-torch: /usr/bin/python3 gen_models.py
"""
import json
import math
import os

import torch

from safetensors_io import write_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.path.join(HERE, "..", "suites")

# ---------------------------------------------------------------- file output


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


# ---------------------------------------------------------------- models

GROUPS = 16
TALKER_VOCAB, PRED_VOCAB, TEXT_VOCAB, TEXT_HIDDEN = 96, 64, 32, 32


def decoder_config(hidden, layers, max_pos):
    return {
        "num_hidden_layers": layers, "hidden_size": hidden, "intermediate_size": 64,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
        "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "max_position_embeddings": max_pos,
        "hidden_act": "silu", "attention_bias": False,
    }


def model_config(talker_hidden, pred_hidden, size):
    t = decoder_config(talker_hidden, 2, 4096)
    t.update({
        "vocab_size": TALKER_VOCAB, "num_code_groups": GROUPS,
        "text_vocab_size": TEXT_VOCAB, "text_hidden_size": TEXT_HIDDEN,
        "codec_pad_id": 68, "codec_bos_id": 69, "codec_eos_token_id": 70,
        "codec_think_id": 74, "codec_nothink_id": 75, "codec_think_bos_id": 76, "codec_think_eos_id": 77,
        "codec_language_id": {"english": 80, "chinese": 81},
        "code_predictor_config": dict(decoder_config(pred_hidden, 2, 65536), vocab_size=PRED_VOCAB,
                                      num_code_groups=GROUPS),
    })
    return {
        "model_type": "qwen3_tts", "architectures": ["Qwen3TTSForConditionalGeneration"],
        "tts_model_size": size, "tts_model_type": "base",
        "im_start_token_id": 20, "im_end_token_id": 21, "assistant_token_id": 22,
        "tts_pad_token_id": 23, "tts_bos_token_id": 24, "tts_eos_token_id": 25,
        "talker_config": t,
    }


def random_weights(cfg, gen):
    """Random weights (std 1/sqrt(in) matrices, gains 1 + 0.1 noise), rounded to bf16."""
    t, p = cfg["talker_config"], cfg["talker_config"]["code_predictor_config"]
    w = {}

    def mat(name, rows, cols, std):
        w[name] = (torch.randn(rows, cols, generator=gen, dtype=torch.float64) * std).to(torch.bfloat16)

    def vec(name, n, base, std):
        w[name] = (base + torch.randn(n, generator=gen, dtype=torch.float64) * std).to(torch.bfloat16)

    def decoder(prefix, d):
        h, q, kv, i = d["hidden_size"], d["num_attention_heads"] * d["head_dim"], \
            d["num_key_value_heads"] * d["head_dim"], d["intermediate_size"]
        for l in range(d["num_hidden_layers"]):
            pl = "%slayers.%d." % (prefix, l)
            vec(pl + "input_layernorm.weight", h, 1, 0.1)
            vec(pl + "post_attention_layernorm.weight", h, 1, 0.1)
            vec(pl + "self_attn.q_norm.weight", d["head_dim"], 1, 0.1)
            vec(pl + "self_attn.k_norm.weight", d["head_dim"], 1, 0.1)
            mat(pl + "self_attn.q_proj.weight", q, h, h ** -0.5)
            mat(pl + "self_attn.k_proj.weight", kv, h, h ** -0.5)
            mat(pl + "self_attn.v_proj.weight", kv, h, h ** -0.5)
            mat(pl + "self_attn.o_proj.weight", h, q, q ** -0.5 / 2)
            mat(pl + "mlp.gate_proj.weight", i, h, h ** -0.5)
            mat(pl + "mlp.up_proj.weight", i, h, h ** -0.5)
            mat(pl + "mlp.down_proj.weight", h, i, i ** -0.5 / 2)
        vec(prefix + "norm.weight", h, 1, 0.1)

    th, ph = t["hidden_size"], p["hidden_size"]
    decoder("talker.model.", t)
    decoder("talker.code_predictor.model.", p)
    mat("talker.model.text_embedding.weight", TEXT_VOCAB, TEXT_HIDDEN, 0.5)
    mat("talker.text_projection.linear_fc1.weight", TEXT_HIDDEN, TEXT_HIDDEN, TEXT_HIDDEN ** -0.5)
    vec("talker.text_projection.linear_fc1.bias", TEXT_HIDDEN, 0, 0.02)
    mat("talker.text_projection.linear_fc2.weight", th, TEXT_HIDDEN, TEXT_HIDDEN ** -0.5)
    vec("talker.text_projection.linear_fc2.bias", th, 0, 0.02)
    mat("talker.model.codec_embedding.weight", TALKER_VOCAB, th, 0.5)
    mat("talker.codec_head.weight", TALKER_VOCAB, th, 1.5 * th ** -0.5)
    for g in range(GROUPS - 1):
        mat("talker.code_predictor.model.codec_embedding.%d.weight" % g, PRED_VOCAB, th, 0.5)
        mat("talker.code_predictor.lm_head.%d.weight" % g, PRED_VOCAB, ph, 1.5 * ph ** -0.5)
    if th != ph:
        mat("talker.code_predictor.small_to_mtp_projection.weight", ph, th, th ** -0.5)
        vec("talker.code_predictor.small_to_mtp_projection.bias", ph, 0, 0.02)
    return w


# ---------------------------------------------------------------- reference


def f64(w, name):
    return w[name].to(torch.float64)


def rms(x, g, eps):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * g


def rope(x, pos, theta):
    """x [T, heads, d], pos [T]: rotate-half RoPE."""
    d = x.shape[-1]
    inv = theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = pos.to(torch.float64)[:, None] * inv[None, :]
    c, s = torch.cos(ang)[:, None, :], torch.sin(ang)[:, None, :]
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)


def decoder_forward(w, prefix, d, x):
    """Causal forward of rows x [T, hidden] at positions 0..T-1 -> final-norm hidden [T, hidden]."""
    T = x.shape[0]
    H, KV, hd, eps, theta = d["num_attention_heads"], d["num_key_value_heads"], d["head_dim"], \
        d["rms_norm_eps"], d["rope_theta"]
    pos = torch.arange(T)
    mask = torch.full((T, T), float("-inf"), dtype=torch.float64).triu(1)
    for l in range(d["num_hidden_layers"]):
        pl = "%slayers.%d." % (prefix, l)
        h = rms(x, f64(w, pl + "input_layernorm.weight"), eps)
        q = (h @ f64(w, pl + "self_attn.q_proj.weight").T).view(T, H, hd)
        k = (h @ f64(w, pl + "self_attn.k_proj.weight").T).view(T, KV, hd)
        v = (h @ f64(w, pl + "self_attn.v_proj.weight").T).view(T, KV, hd)
        q = rope(rms(q, f64(w, pl + "self_attn.q_norm.weight"), eps), pos, theta)
        k = rope(rms(k, f64(w, pl + "self_attn.k_norm.weight"), eps), pos, theta)
        k = k.repeat_interleave(H // KV, dim=1)
        v = v.repeat_interleave(H // KV, dim=1)
        att = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd) + mask
        o = torch.einsum("hts,shd->thd", torch.softmax(att, -1), v).reshape(T, H * hd)
        x = x + o @ f64(w, pl + "self_attn.o_proj.weight").T
        h = rms(x, f64(w, pl + "post_attention_layernorm.weight"), eps)
        gt = h @ f64(w, pl + "mlp.gate_proj.weight").T
        up = h @ f64(w, pl + "mlp.up_proj.weight").T
        x = x + (torch.nn.functional.silu(gt) * up) @ f64(w, pl + "mlp.down_proj.weight").T
    return rms(x, f64(w, prefix + "norm.weight"), eps)


def predictor_logits(w, cfg, hidden, codes):
    """hidden [talker_hidden], codes [16] -> logits [15, vocab]."""
    p = cfg["talker_config"]["code_predictor_config"]
    proj = lambda e: e
    if "talker.code_predictor.small_to_mtp_projection.weight" in w:
        pw = f64(w, "talker.code_predictor.small_to_mtp_projection.weight")
        pb = f64(w, "talker.code_predictor.small_to_mtp_projection.bias")
        proj = lambda e: e @ pw.T + pb
    rows = [hidden, f64(w, "talker.model.codec_embedding.weight")[codes[0]]]
    for g in range(2, GROUPS):
        rows.append(f64(w, "talker.code_predictor.model.codec_embedding.%d.weight" % (g - 2))[codes[g - 1]])
    x = proj(torch.stack(rows))
    h = decoder_forward(w, "talker.code_predictor.model.", p, x)
    return torch.stack([h[g] @ f64(w, "talker.code_predictor.lm_head.%d.weight" % (g - 1)).T
                        for g in range(1, GROUPS)])


def talker_outputs(w, cfg, rows, T):
    """rows [T+S, hidden] -> final-norm hidden and logits after the prefill and each decode row."""
    h = decoder_forward(w, "talker.model.", cfg["talker_config"], rows)[T - 1:]
    return h, h @ f64(w, "talker.codec_head.weight").T


# ---------------------------------------------------------------- cases


def write_case(dirname, name, case, tensors):
    os.makedirs(dirname, exist_ok=True)
    write_json(os.path.join(dirname, name + ".json"), case)
    write_safetensors(os.path.join(dirname, name + ".safetensors"), dict(sorted(tensors.items())))


def main():
    gen = torch.Generator().manual_seed(20261202)
    for model, th in (("tiny", 32), ("tiny-wide", 48)):
        cfg = model_config(th, 32, model)
        mdir = os.path.join(SUITES, "models", model)
        os.makedirs(mdir, exist_ok=True)
        w = random_weights(cfg, gen)
        write_json(os.path.join(mdir, "config.json"), cfg)
        write_json(os.path.join(mdir, "generation_config.json"), {
            "do_sample": True, "temperature": 0.9, "top_k": 50, "top_p": 1.0,
            "repetition_penalty": 1.05, "max_new_tokens": 8192,
            "subtalker_dosample": True, "subtalker_temperature": 0.9, "subtalker_top_k": 50,
            "subtalker_top_p": 1.0})
        write_safetensors(os.path.join(mdir, "model.safetensors"), dict(sorted(w.items())))

        # predictor: B frames, teacher-forced on random codes
        for prec, B in (("fp32", 3), ("int8", 8), ("int8-fp32head", 8)):
            hidden = torch.randn(B, th, generator=gen, dtype=torch.float64)
            codes = torch.randint(0, PRED_VOCAB, (B, GROUPS), generator=gen)
            logits = torch.stack([predictor_logits(w, cfg, hidden[b], codes[b]) for b in range(B)])
            case = {"kind": "predictor", "name": "predictor_%s_%s" % (model, prec),
                    "description": "code predictor of models/%s, %d frames teacher-forced, %s" % (model, B, prec),
                    "model": "../models/" + model, "precision": prec,
                    "talker_hidden": {"tensor": "talker_hidden"}, "codes": {"tensor": "codes"},
                    "expect_logits": {"tensor": "expect_logits"}}
            if prec == "fp32":
                case.update(atol=1e-4, rtol=1e-4)
            else:
                case.update(min_top1=0.9, max_kl=0.01)
            write_case(os.path.join(SUITES, "predictor"), case["name"], case, {
                "talker_hidden": hidden.to(torch.float32), "codes": codes.to(torch.int64),
                "expect_logits": logits.to(torch.float32)})

        # talker: a prefill of T rows then S decode rows
        for prec, T, S in (("fp32", 6, 4), ("fp32", 1, 8), ("int8", 12, 20)):
            rows = torch.randn(T + S, th, generator=gen, dtype=torch.float64)
            h, logits = talker_outputs(w, cfg, rows, T)
            name = "talker_%s_%s_t%d_s%d" % (model, prec, T, S)
            case = {"kind": "talker", "name": name,
                    "description": "talker of models/%s: prefill %d rows, decode %d, %s" % (model, T, S, prec),
                    "model": "../models/" + model, "precision": prec,
                    "inputs_embeds": {"tensor": "inputs_embeds"}, "decode_embeds": {"tensor": "decode_embeds"},
                    "expect_hidden": {"tensor": "expect_hidden"}, "expect_logits": {"tensor": "expect_logits"}}
            if prec == "fp32":
                case.update(atol=1e-4, rtol=1e-4)
            else:
                case.update(min_top1=0.9)
            write_case(os.path.join(SUITES, "talker"), name, case, {
                "inputs_embeds": rows[:T].to(torch.float32), "decode_embeds": rows[T:].to(torch.float32),
                "expect_hidden": h.to(torch.float32), "expect_logits": logits.to(torch.float32)})


if __name__ == "__main__":
    main()
