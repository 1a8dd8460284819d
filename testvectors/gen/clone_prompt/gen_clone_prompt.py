#!/usr/bin/python3
"""Writes suites/clone_prompt/: the talker input rows of voice-cloning
requests on a tiny Base checkpoint, built the way upstream's
Qwen3TTSForConditionalGeneration.generate and generate_icl_prompt build them
(qwen_tts/core/models/modeling_qwen3_tts.py @022e286, read for behaviour;
summarised in ../shared/research/wave3.md §3.4), in float64 on the
checkpoint's bf16 weights, independently of omni.

The model (suites/clone_prompt/models/tiny-base/): a toy Base checkpoint
(tts_model_type "base"; talker and code predictor 16 wide, 1 layer each,
random weights through gen_models.random_weights with this suite's
vocabularies) and a toy byte-level BPE tokenizer (vocab.json, merges.txt,
tokenizer_config.json): the 256 byte symbols in GPT-2 order (so "\\n" is 198,
the id omni's IDsFromConfig assumes), the merges spelling "assistant" as one
token, and the added tokens <|im_start|>, <|im_end|>, tts pad/bos/eos. The
reference tokenizes with its own byte-level BPE (the Qwen2 pre-tokenizer
pattern, its letter and number classes written for the ASCII texts used
here, merges by rank), as upstream's
processor does on "<|im_start|>assistant\\n{text}<|im_end|>\\n<|im_start|>assistant\\n"
and "<|im_start|>assistant\\n{ref_text}<|im_end|>\\n".
suites/clone_prompt/models/custom-voice/ is the same with
tts_model_type "custom_voice" and no weights (its case is refused first).

Run with Debian's python3-torch: /usr/bin/python3 gen_clone_prompt.py
"""
import json
import os
import shutil
import sys

import re

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import gen_models  # noqa: E402
from safetensors_io import write_safetensors  # noqa: E402

SUITE = os.path.normpath(os.path.join(HERE, "..", "..", "suites", "clone_prompt"))
GROUPS = 16
HIDDEN = 16
TEXT_VOCAB, TEXT_HIDDEN, TALKER_VOCAB, PRED_VOCAB = 272, 16, 96, 64

# ---------------------------------------------------------------- tokenizer


def bytes_to_unicode():
    """GPT-2's byte -> symbol table, in its id order."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return bs, [chr(c) for c in cs]


BYTES, SYMS = bytes_to_unicode()
BYTE_SYM = dict(zip(BYTES, SYMS))
WORD = "assistant"
MERGES = [(WORD[:i], WORD[i]) for i in range(1, len(WORD))]  # a s, as s, ass i, ...
VOCAB = {s: i for i, s in enumerate(SYMS)}
for l, r in MERGES:
    VOCAB[l + r] = len(VOCAB)
SPECIAL = {"<|im_start|>": 264, "<|im_end|>": 265, "<tts_pad>": 266, "<tts_bos>": 267, "<tts_eos>": 268}
RANK = {m: i for i, m in enumerate(MERGES)}
# The Qwen2 pre-tokenizer pattern with \p{L} = [A-Za-z] and \p{N} = [0-9]:
# exact for the ASCII texts of this suite (encode refuses others).
L, N = "A-Za-z", "0-9"
PAT = re.compile(r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n%s%s]?[%s]+|[%s]| ?[^\s%s%s]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
                 % (L, N, L, N, L, N))


def bpe(piece):
    syms = [BYTE_SYM[b] for b in piece.encode("utf-8")]
    while len(syms) > 1:
        best = min(range(len(syms) - 1), key=lambda i: RANK.get((syms[i], syms[i + 1]), 1 << 30))
        if (syms[best], syms[best + 1]) not in RANK:
            break
        syms[best:best + 2] = [syms[best] + syms[best + 1]]
    return [VOCAB[s] for s in syms]


def encode(s):
    """Special tokens matched anywhere (the template's), the rest by BPE."""
    assert s.isascii(), s
    out = []
    for part in re.split("(" + "|".join(re.escape(k) for k in SPECIAL) + ")", s):
        if part in SPECIAL:
            out.append(SPECIAL[part])
        elif part:
            for m in PAT.findall(part):
                out += bpe(m)
    return out


def write_tokenizer(d):
    with open(os.path.join(d, "vocab.json"), "w") as f:
        json.dump(VOCAB, f, ensure_ascii=False)
    with open(os.path.join(d, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in MERGES))
    added = {str(i): {"content": k, "lstrip": False, "rstrip": False, "single_word": False,
                      "normalized": False, "special": True} for k, i in SPECIAL.items()}
    gen_models.write_json(os.path.join(d, "tokenizer_config.json"), {"added_tokens_decoder": added})


# ---------------------------------------------------------------- model


def config(kind):
    gen_models.TEXT_VOCAB, gen_models.TEXT_HIDDEN = TEXT_VOCAB, TEXT_HIDDEN
    gen_models.TALKER_VOCAB, gen_models.PRED_VOCAB = TALKER_VOCAB, PRED_VOCAB
    cfg = gen_models.model_config(HIDDEN, HIDDEN, "tiny")
    cfg["tts_model_type"] = kind
    t = cfg["talker_config"]
    t["num_hidden_layers"] = 1
    t["code_predictor_config"]["num_hidden_layers"] = 1
    t["codec_language_id"] = {"english": 80, "chinese": 81, "german": 82}
    cfg.update({"im_start_token_id": SPECIAL["<|im_start|>"], "im_end_token_id": SPECIAL["<|im_end|>"],
                "assistant_token_id": VOCAB[WORD], "tts_pad_token_id": SPECIAL["<tts_pad>"],
                "tts_bos_token_id": SPECIAL["<tts_bos>"], "tts_eos_token_id": SPECIAL["<tts_eos>"]})
    return cfg


def write_model(name, kind, weights):
    d = os.path.join(SUITE, "models", name)
    os.makedirs(d)
    cfg = config(kind)
    gen_models.write_json(os.path.join(d, "config.json"), cfg)
    write_tokenizer(d)
    if weights:
        gen_models.write_json(os.path.join(d, "generation_config.json"), {
            "do_sample": True, "temperature": 0.9, "top_k": 50, "top_p": 1.0, "repetition_penalty": 1.05,
            "max_new_tokens": 8192, "subtalker_dosample": True, "subtalker_temperature": 0.9,
            "subtalker_top_k": 50, "subtalker_top_p": 1.0})
        w = gen_models.random_weights(cfg, torch.Generator().manual_seed(2606))
        write_safetensors(os.path.join(d, "model.safetensors"), w)
        return cfg, w
    return cfg, None


# ---------------------------------------------------------------- the reference


class Talker:
    """The embedding side of upstream's talker, float64 on the bf16 weights."""

    def __init__(self, cfg, w):
        f = lambda n: w[n].to(torch.float64)
        self.cfg, self.t = cfg, cfg["talker_config"]
        self.text = f("talker.model.text_embedding.weight")
        self.fc1, self.b1 = f("talker.text_projection.linear_fc1.weight"), f("talker.text_projection.linear_fc1.bias")
        self.fc2, self.b2 = f("talker.text_projection.linear_fc2.weight"), f("talker.text_projection.linear_fc2.bias")
        self.codec = f("talker.model.codec_embedding.weight")
        self.pred = [f("talker.code_predictor.model.codec_embedding.%d.weight" % g) for g in range(GROUPS - 1)]

    def proj_text(self, ids):
        """text_projection(text_embedding(ids)): fc2(silu(fc1(e)))."""
        e = self.text[torch.tensor(ids, dtype=torch.long)]
        return torch.nn.functional.silu(e @ self.fc1.T + self.b1) @ self.fc2.T + self.b2

    def codec_rows(self, ids):
        return self.codec[torch.tensor(ids, dtype=torch.long)]

    def icl(self, text_id, ref_id, ref_code, pad, eos, non_streaming):
        """generate_icl_prompt: (rows, trailing)."""
        text = torch.cat([self.proj_text(ref_id + text_id), eos])
        frames = [self.codec[ref_code[:, 0]]] + [self.pred[g - 1][ref_code[:, g]] for g in range(1, GROUPS)]
        codec = torch.cat([self.codec_rows([self.t["codec_bos_id"]]), torch.stack(frames).sum(0)])
        tl, cl = text.shape[0], codec.shape[0]
        if non_streaming:
            rows = text + self.codec_rows([self.t["codec_pad_id"]] * tl)
            return torch.cat([rows, codec + pad]), pad
        if tl > cl:
            return text[:cl] + codec, text[cl:]
        return torch.cat([text] + [pad] * (cl - tl)) + codec, pad

    def prompt(self, text, language, xvec, ref_text, ref_code, non_streaming):
        """generate() for one voice-clone item: (talker_input_embed, trailing_text_hidden)."""
        cfg, t = self.cfg, self.t
        input_id = encode("<|im_start|>assistant\n%s<|im_end|>\n<|im_start|>assistant\n" % text)
        pad, bos, eos = self.proj_text([cfg["tts_pad_token_id"]]), self.proj_text([cfg["tts_bos_token_id"]]), \
            self.proj_text([cfg["tts_eos_token_id"]])
        lang = None if language.lower() == "auto" else t["codec_language_id"][language.lower()]
        if lang is None:
            pre = [t["codec_nothink_id"], t["codec_think_bos_id"], t["codec_think_eos_id"]]
        else:
            pre = [t["codec_think_id"], t["codec_think_bos_id"], lang, t["codec_think_eos_id"]]
        codec = torch.cat([self.codec_rows(pre), xvec[None, :],
                           self.codec_rows([t["codec_pad_id"], t["codec_bos_id"]])])
        role = self.proj_text(input_id[:3])
        ctrl = torch.cat([pad.expand(codec.shape[0] - 2, -1), bos]) + codec[:-1]
        rows = torch.cat([role, ctrl])
        if ref_code is not None:
            ref_id = encode("<|im_start|>assistant\n%s<|im_end|>\n" % ref_text)[3:-2]
            icl, trailing = self.icl(input_id[3:-5], ref_id, ref_code, pad, eos, non_streaming)
            return torch.cat([rows, icl]), trailing
        first = self.proj_text(input_id[3:4]) + codec[-1:]
        if non_streaming:
            body = torch.cat([self.proj_text(input_id[3:-5]), eos]) + \
                self.codec_rows([t["codec_pad_id"]] * (len(input_id[3:-5]) + 1))
            return torch.cat([rows, body, pad + self.codec_rows([t["codec_bos_id"]])]), pad
        return torch.cat([rows, first]), torch.cat([self.proj_text(input_id[4:-5]), eos])


# ---------------------------------------------------------------- cases


def write_case(name, case, tensors):
    write_safetensors(os.path.join(SUITE, name + ".safetensors"), tensors)
    case = dict(kind="clone_prompt", name="clone_prompt/" + name, **case)
    gen_models.write_json(os.path.join(SUITE, name + ".json"), case)


def main():
    if os.path.isdir(SUITE):
        shutil.rmtree(SUITE)
    os.makedirs(SUITE)
    cfg, w = write_model("tiny-base", "base", True)
    write_model("custom-voice", "custom_voice", False)
    tk = Talker(cfg, w)
    g = torch.Generator().manual_seed(26)
    xvec = (torch.randn(HIDDEN, generator=g, dtype=torch.float64) * 0.5).to(torch.float32)

    def codes(frames):
        return torch.randint(0, PRED_VOCAB, (frames, GROUPS), generator=g, dtype=torch.int64)

    cases = [
        # name, text, language, ref_text, frames (None: x-vector only), non-streaming
        ("xvector_streaming_english", "Hello there, my friend.", "english", "", None, False),
        ("xvector_nonstreaming_auto", "Hi!\nTwo lines.", "auto", "", None, True),
        ("icl_streaming_text_longer", "This target text is longer than the reference.", "english", "Ref words.", 3, False),
        ("icl_streaming_text_shorter", "Go.", "auto", "Hm, ok.", 17, False),
        ("icl_streaming_equal", "ab", "auto", "cd", 4, False),  # text 2 + 2 + tts_eos = codec_bos + 4 frames
        ("icl_nonstreaming_german", "Guten Tag, wie geht's?", "german", "Ja, so.", 6, True),
        ("icl_nonstreaming_auto_short_ref", "A longer sentence to speak.", "auto", "Yo", 2, True),
    ]
    for name, text, lang, ref_text, frames, ns in cases:
        rc = codes(frames) if frames is not None else None
        rows, trailing = tk.prompt(text, lang, xvec.to(torch.float64), ref_text, rc, ns)
        case = {"description": "%s: %d prompt rows, %d trailing rows (upstream's, float64 on the bf16 weights)" % (
            name, rows.shape[0], trailing.shape[0]),
            "model": "models/tiny-base", "text": text, "language": lang,
            "x_vector": {"tensor": "x_vector"}, "x_vector_only": rc is None, "non_streaming": ns,
            "expect_rows": {"tensor": "expect_rows"}, "expect_trailing": {"tensor": "expect_trailing"},
            "atol": 2e-6}
        tensors = {"x_vector": xvec}
        if rc is not None:
            case["ref_text"] = ref_text
            case["ref_codes"] = {"tensor": "ref_codes"}
            tensors["ref_codes"] = rc
        tensors["expect_rows"] = rows.to(torch.float32)
        tensors["expect_trailing"] = trailing.to(torch.float32)
        write_case(name, case, tensors)
    # refusals
    rc = codes(4)
    for name, model, ref_text, want in [
        ("error_icl_without_ref_text", "models/tiny-base", "", "field ref_text"),
        ("error_not_base", "models/custom-voice", "Ref.", "needs a Base model"),
    ]:
        case = {"description": "refused: " + want, "model": model, "text": "Hello.", "language": "auto",
                "x_vector": {"tensor": "x_vector"}, "ref_codes": {"tensor": "ref_codes"},
                "x_vector_only": False, "non_streaming": False, "expect_error": want}
        if ref_text:
            case["ref_text"] = ref_text
        write_case(name, case, {"x_vector": xvec, "ref_codes": rc})
    print("wrote %d cases to %s" % (len(cases) + 2, SUITE))


if __name__ == "__main__":
    main()
