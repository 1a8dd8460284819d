#!/usr/bin/python3
"""Writes testvectors/suites/sampler/: "sampler" cases computed with PyTorch.

The reference is vLLM's v1 sampler pipeline (docs/SAMPLING.md §2) written here in torch, independently of omni: allowed ids -> bad words ->
min_tokens -> logit_bias -> repetition / frequency / presence penalties (the
CPU torch variant: logits *= where(L > 0, fp32(1/r), r)) -> greedy argmax ->
temperature -> min_p -> top-k -> top-p -> softmax -> argmax(P / q) with
q.exponential_(generator=torch.Generator().manual_seed(seed)).

Decisions where vLLM is batch-dependent (documented in docs/TESTVECTORS.md): every
filter acts on its own row only (a row with top_p = 1 or top_k off is
untouched), every seeded random row draws V values from its own generator on
every step, and the top-p sort is stable (ties: the lower index counts as the
smaller token and is dropped first).

Robustness: omni's softmax uses a correctly rounded exp where torch's CPU
kernel uses a vectorised approximation (up to 1 ulp apart), so a token could
differ only when two candidates of the race, or a min_p / top-p boundary, are
within ~1e-7 relative. Randomly drawn steps are redrawn until every such
margin exceeds 1e-5 (cases built to sit exactly on a boundary with exactly
representable probabilities are marked exact and not checked).

Run with Debian's python3-torch: /usr/bin/python3 gen_sampler.py
"""
import json
import math
import os

import torch

from safetensors_io import write_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "suites", "sampler")
NINF = float("-inf")
MARGIN = 1e-5

# ---------------------------------------------------------------- file output


# ---------------------------------------------------------------- validation


class Invalid(Exception):
    pass


def validate(p, vocab):
    """vLLM's SamplingParams checks (docs/SAMPLING.md §1), plus finiteness."""
    def isfin(v):
        return not (math.isnan(v) or math.isinf(v))

    t = p.get("temperature", 1.0)
    if not isfin(t) or t < 0:
        raise Invalid("temperature")
    tp = p.get("top_p", 1.0)
    if not (0 < tp <= 1):
        raise Invalid("top_p")
    if p.get("top_k", 0) < -1:
        raise Invalid("top_k")
    mp = p.get("min_p", 0.0)
    if not (0 <= mp <= 1):
        raise Invalid("min_p")
    rp = p.get("repetition_penalty", 1.0)
    if not isfin(rp) or rp <= 0:
        raise Invalid("repetition_penalty")
    if not (-2 <= p.get("presence_penalty", 0.0) <= 2):
        raise Invalid("presence_penalty")
    if not (-2 <= p.get("frequency_penalty", 0.0) <= 2):
        raise Invalid("frequency_penalty")
    mt = p.get("min_tokens", 0)
    if mt < 0:
        raise Invalid("min_tokens")
    if p.get("max_tokens") is not None and mt > p["max_tokens"]:
        raise Invalid("min_tokens")
    for k in p.get("logit_bias", {}):
        if not (0 <= int(k) < vocab):
            raise Invalid("logit_bias")
    a = p.get("allowed_token_ids")
    if a is not None:
        if len(a) == 0 or any(not (0 <= i < vocab) for i in a):
            raise Invalid("allowed_token_ids")
    for i in p.get("stop_token_ids", []):
        if not (0 <= i < vocab):
            raise Invalid("stop_token_ids")
    for w in p.get("bad_words_token_ids", []):
        if len(w) == 0 or any(not (0 <= i < vocab) for i in w):
            raise Invalid("bad_words_token_ids")


# ---------------------------------------------------------------- reference


def eff_temp(p):
    t = p.get("temperature", 1.0)
    if 0 < t < 1e-2:
        t = 1e-2
    return t


class Fragile(Exception):
    pass


def reference_step(logits, reqs, hists, gens, exact):
    """One step of the batch. Returns (tokens, processed [B,V])."""
    B, V = logits.shape
    L = logits.clone().to(torch.float32)
    # logits processors, per row
    for b, r in enumerate(reqs):
        p, out = r["params"], hists[b]
        x = L[b]
        if p.get("allowed_token_ids") is not None:
            m = torch.ones(V, dtype=torch.bool)
            m[torch.tensor(p["allowed_token_ids"], dtype=torch.long)] = False
            x[m] = NINF
        for w in p.get("bad_words_token_ids", []):
            n = len(w)
            if n - 1 > len(out):
                continue
            if n == 1 or out[len(out) - (n - 1):] == w[:-1]:
                x[w[-1]] = NINF
        if len(out) < p.get("min_tokens", 0):
            ids = list(p.get("stop_token_ids", []))
            if p.get("eos_token_id") is not None:
                ids.append(p["eos_token_id"])
            if ids:
                x[torch.tensor(ids, dtype=torch.long)] = NINF
        lb = p.get("logit_bias", {})
        if lb:
            idx = torch.tensor([int(k) for k in lb], dtype=torch.long)
            val = torch.tensor([float(v) for v in lb.values()], dtype=torch.float32)
            x[idx] += val
    # penalties over the whole batch (vLLM apply_penalties, CPU torch path)
    need = any(r["params"].get("repetition_penalty", 1.0) != 1.0 or r["params"].get("frequency_penalty", 0.0) != 0.0
               or r["params"].get("presence_penalty", 0.0) != 0.0 for r in reqs)
    if need:
        prompt_mask = torch.zeros(B, V, dtype=torch.bool)
        counts = torch.zeros(B, V, dtype=torch.long)
        for b, r in enumerate(reqs):
            for t in r.get("prompt_token_ids", []):
                prompt_mask[b, t] = True
            for t in hists[b]:
                counts[b, t] += 1
        out_mask = counts > 0
        rep = torch.tensor([r["params"].get("repetition_penalty", 1.0) for r in reqs], dtype=torch.float32)
        freq = torch.tensor([r["params"].get("frequency_penalty", 0.0) for r in reqs], dtype=torch.float32)
        pres = torch.tensor([r["params"].get("presence_penalty", 0.0) for r in reqs], dtype=torch.float32)
        pen = torch.where(prompt_mask | out_mask, rep.unsqueeze(1).repeat(1, V), torch.tensor(1.0))
        scaling = torch.where(L > 0, 1.0 / pen, pen)
        L *= scaling
        L -= freq.unsqueeze(1) * counts
        L -= pres.unsqueeze(1) * out_mask
    greedy = L.argmax(dim=-1)
    tokens, processed = [], L.clone()
    for b, r in enumerate(reqs):
        p = r["params"]
        t = eff_temp(p)
        if t < 1e-5:
            tokens.append(int(greedy[b]))
            continue
        x = L[b] / torch.tensor(t, dtype=torch.float32)
        mp = p.get("min_p", 0.0)
        if mp > 0:
            P = torch.softmax(x, dim=-1)
            thr = P.max() * torch.tensor(mp, dtype=torch.float32)
            if not exact:
                fin = P > 0
                rel = ((P[fin] - thr).abs() / thr).min().item()
                if rel < MARGIN:
                    raise Fragile("min_p boundary %g" % rel)
            x[P < thr] = NINF
        k = p.get("top_k", 0)
        if k <= 0 or k >= V:
            k = None
        tp = p.get("top_p", 1.0)
        if tp >= 1.0:
            tp = None
        if tp is not None:
            S, idx = torch.sort(x, descending=False, stable=True)
            if k is not None:
                S[S < S[V - k]] = NINF
            Q = torch.softmax(S, dim=-1)
            C = torch.cumsum(Q, dim=-1)
            lim = 1 - torch.tensor(tp, dtype=torch.float32)
            if not exact:
                live = Q > 0
                live[-1] = False  # the top token is kept whatever its sum
                rel = ((C[live] - lim).abs()).min().item() if live.any() else 1.0
                if rel < MARGIN:
                    raise Fragile("top_p boundary %g" % rel)
            mask = C <= lim
            mask[-1] = False
            S[mask] = NINF
            x = torch.empty_like(x).scatter_(0, idx, S)
        elif k is not None:
            thr = torch.topk(x, k).values[k - 1]
            x[x < thr] = NINF
        P = torch.softmax(x, dim=-1)
        q = torch.empty(V, dtype=torch.float32).exponential_(generator=gens[b])
        s = P / q
        tok = int(s.argmax())
        if not exact:
            top2 = torch.topk(s, 2).values
            if top2[1] > 0 and (top2[0] - top2[1]) / top2[0] < MARGIN:
                raise Fragile("race near tie")
        tokens.append(tok)
        processed[b] = x
    return tokens, processed


# ---------------------------------------------------------------- cases


class Suite:
    def __init__(self):
        self.names = set()
        self.count = 0

    def add(self, name, vocab, requests, step_logits, description, exact=False, processed=True,
            inline=None, redraw=None):
        """Writes one case. step_logits: list of [B,V] tensors, or None when
        redraw(attempt) -> list gives fresh random logits for fragile steps."""
        assert name not in self.names, name
        self.names.add(name)
        for attempt in range(200):
            logits = step_logits if redraw is None else redraw(attempt)
            try:
                steps = self._run(vocab, requests, logits, exact)
                break
            except Fragile:
                if redraw is None:
                    raise
        else:
            raise RuntimeError("%s: no robust draw" % name)
        tensors, jsteps = {}, []
        if inline is None:
            inline = vocab <= 17
        for i, (lg, toks, proc) in enumerate(steps):
            st = {}
            if inline and torch.isfinite(lg).all():
                st["logits"] = [[float(v) for v in row] for row in lg.tolist()]
            else:
                tensors["logits%d" % i] = lg
                st["logits"] = {"tensor": "logits%d" % i}
            st["expect_tokens"] = toks
            if processed:
                tensors["processed%d" % i] = proc
                st["expect_processed"] = {"tensor": "processed%d" % i}
            jsteps.append(st)
        self._write(name, vocab, requests, jsteps, description, tensors)

    def _run(self, vocab, requests, logits, exact):
        hists = [list(r.get("output_token_ids", [])) for r in requests]
        gens = []
        for r in requests:
            s = r["params"].get("seed")
            gens.append(torch.Generator().manual_seed(s) if s is not None else None)
        for r in requests:
            validate(r["params"], vocab)
            if eff_temp(r["params"]) >= 1e-5 and r["params"].get("seed") is None:
                raise RuntimeError("unseeded random row")
        steps = []
        for lg in logits:
            assert lg.shape == (len(requests), vocab), lg.shape
            toks, proc = reference_step(lg, requests, hists, gens, exact)
            for b, t in enumerate(toks):
                hists[b].append(t)  # teacher forcing: the reference's token
            steps.append((lg, toks, proc))
        return steps

    def invalid(self, name, vocab, params, field, description):
        assert name not in self.names, name
        self.names.add(name)
        try:
            validate(params, vocab)
        except Invalid as e:
            assert str(e) == field, (name, str(e), field)
        else:
            raise RuntimeError("%s: params are valid" % name)
        lg = torch.zeros(1, vocab)
        jsteps = [{"logits": [[0.0] * vocab] if vocab <= 17 else {"tensor": "logits0"}, "expect_error": field}]
        tensors = {} if vocab <= 17 else {"logits0": lg}
        self._write(name, vocab, [{"params": params, "prompt_token_ids": [], "output_token_ids": []}],
                    jsteps, description, tensors)

    def _write(self, name, vocab, requests, jsteps, description, tensors):
        case = {
            "kind": "sampler",
            "name": "sampler/" + name,
            "description": description + " (torch %s reference)" % torch.__version__,
            "vocab": vocab,
            "requests": [{"params": r["params"], "prompt_token_ids": r.get("prompt_token_ids", []),
                          "output_token_ids": r.get("output_token_ids", [])} for r in requests],
            "steps": jsteps,
        }
        base = os.path.join(OUT, name)
        with open(base + ".json", "w") as f:
            json.dump(case, f, indent=1)
            f.write("\n")
        if tensors:
            write_safetensors(base + ".safetensors", tensors)
        elif os.path.exists(base + ".safetensors"):
            os.remove(base + ".safetensors")
        self.count += 1


def rnd(seed, shape, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float32) * scale


def rows(*rs):
    return [dict(r) for r in rs]


def req(params, prompt=(), output=()):
    return {"params": params, "prompt_token_ids": list(prompt), "output_token_ids": list(output)}


def redraw_fn(base_seed, shape, steps=1, scale=3.0):
    return lambda a: [rnd(base_seed * 1000 + a * 17 + s, shape, scale) for s in range(steps)]


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    s = Suite()
    V = 17

    # --- greedy and argmax ties
    s.add("greedy_v17", V, [req({"temperature": 0.0})], None, "greedy row: argmax, no noise",
          redraw=redraw_fn(1, (1, V)))
    tie = torch.tensor([[0.5, 2.0, -1.0, 2.0, 2.0] + [0.0] * 12])
    s.add("greedy_tie_first_index", V, [req({"temperature": 0.0})], [tie], "argmax ties: the first index wins",
          exact=True)
    s.add("greedy_all_masked_token0", V,
          [req({"temperature": 0.0, "allowed_token_ids": [5], "bad_words_token_ids": [[5]]})],
          [rnd(2, (1, V))], "every id masked: argmax of an all -inf row is 0", exact=True)
    s.add("seeded_all_masked_token0", V,
          [req({"temperature": 1.0, "seed": 3, "allowed_token_ids": [5], "bad_words_token_ids": [[5]]})],
          [rnd(3, (1, V)), rnd(4, (1, V))], "seeded row with every id masked: token 0, noise still drawn",
          exact=True)

    # --- temperature alone
    s.add("temperature_1_seeded_v17", V, [req({"seed": 0})], None, "plain exponential race, seed 0",
          redraw=redraw_fn(5, (1, V), steps=3))
    s.add("temperature_0.7_seeded_v17", V, [req({"temperature": 0.7, "seed": 42})], None, "temperature 0.7",
          redraw=redraw_fn(6, (1, V), steps=2))
    s.add("temperature_clamped_0.001", V, [req({"temperature": 0.001, "seed": 7})], None,
          "0 < T < 0.01 is raised to 0.01: random, not greedy", redraw=redraw_fn(7, (1, V), steps=2, scale=0.02))
    s.add("temperature_2_flat", V, [req({"temperature": 2.0, "seed": 8})], None, "high temperature",
          redraw=redraw_fn(8, (1, V), steps=3))

    # --- logits processors alone
    s.add("allowed_ids_seeded", V, [req({"seed": 9, "allowed_token_ids": [1, 4, 9, 16]})], None,
          "allowed_token_ids masks every other id", redraw=redraw_fn(9, (1, V), steps=2))
    s.add("allowed_ids_greedy", V, [req({"temperature": 0.0, "allowed_token_ids": [0, 2, 3]})], None,
          "allowed_token_ids on a greedy row", redraw=redraw_fn(10, (1, V)))
    bw = torch.zeros(1, V)
    bw[0, 6] = 5.0
    bw[0, 7] = 4.0
    s.add("bad_words_single", V, [req({"temperature": 0.0, "bad_words_token_ids": [[6]]})], [bw],
          "a one-token bad word is always masked", exact=True)
    s.add("bad_words_multi_match", V,
          [req({"temperature": 0.0, "bad_words_token_ids": [[3, 4, 6], [9, 7]]}, output=[1, 3, 4])],
          [bw, bw], "a bad word whose prefix ends the output is masked; then the history no longer matches",
          exact=True)
    s.add("bad_words_longer_than_history", V,
          [req({"temperature": 0.0, "bad_words_token_ids": [[1, 2, 3, 6]]}, output=[2])], [bw],
          "a bad word longer than the history + 1 is skipped", exact=True)
    mt = torch.zeros(1, V)
    mt[0, 11] = 6.0
    mt[0, 12] = 5.0
    mt[0, 13] = 4.0
    s.add("min_tokens_masks_eos_and_stop", V,
          [req({"temperature": 0.0, "min_tokens": 2, "eos_token_id": 11, "stop_token_ids": [12]})],
          [mt, mt, mt], "EOS and stop ids masked while the output is shorter than min_tokens", exact=True)
    s.add("logit_bias_greedy", V, [req({"temperature": 0.0, "logit_bias": {"3": 7.5, "10": -100.0}})], None,
          "logit_bias added before the argmax", redraw=redraw_fn(11, (1, V)))
    s.add("logit_bias_seeded", V, [req({"seed": 12, "logit_bias": {"0": 2.25, "5": -1.5, "16": 0.125}})], None,
          "logit_bias on a random row", redraw=redraw_fn(12, (1, V), steps=2))

    # --- penalties
    pen_logits = torch.tensor([[2.0, -2.0, 0.0, 1.5, -0.5, 3.0, 0.25, -3.0, 1.0, 0.5, -1.0, 2.5, 0.0, -0.25, 1.25,
                                0.75, -1.5]])
    s.add("repetition_prompt_and_output", V,
          [req({"temperature": 0.0, "repetition_penalty": 1.3}, prompt=[0, 1, 2, 2], output=[5, 7, 5])],
          [pen_logits], "repetition over prompt ∪ output: positive /r (as ·fp32(1/r)), others ·r", exact=True)
    s.add("repetition_below_one", V,
          [req({"temperature": 0.0, "repetition_penalty": 0.7}, prompt=[3, 4], output=[6])],
          [pen_logits], "repetition_penalty < 1 boosts seen ids", exact=True)
    s.add("frequency_penalty_counts", V,
          [req({"temperature": 0.0, "frequency_penalty": 0.6}, output=[5, 5, 5, 11, 0])],
          [pen_logits], "frequency penalty per output occurrence (prompt ignored)", exact=True)
    s.add("presence_penalty", V,
          [req({"temperature": 0.0, "presence_penalty": 1.1}, prompt=[3], output=[5, 5, 11])],
          [pen_logits], "presence penalty once per present output id", exact=True)
    s.add("penalties_combined_seeded", V,
          [req({"seed": 13, "repetition_penalty": 1.2, "frequency_penalty": 0.3, "presence_penalty": -0.4},
               prompt=[1, 2, 3], output=[4, 4, 9])], None,
          "all three penalties, then sampling; history grows by teacher forcing",
          redraw=redraw_fn(13, (1, V), steps=4))
    s.add("negative_penalties_greedy", V,
          [req({"temperature": 0.0, "frequency_penalty": -2.0, "presence_penalty": -2.0}, output=[7, 7])],
          [pen_logits, pen_logits], "negative frequency/presence boost repeated ids", exact=True)

    # --- min_p, top-k, top-p alone
    s.add("min_p_v17", V, [req({"seed": 14, "min_p": 0.2})], None, "min_p drops tokens below 0.2·p_max",
          redraw=redraw_fn(14, (1, V), steps=3))
    s.add("min_p_v2048", 2048, [req({"seed": 15, "min_p": 0.05, "temperature": 0.8})], None, "min_p at V 2048",
          redraw=redraw_fn(15, (1, 2048), steps=2))
    s.add("top_k_v17", V, [req({"seed": 16, "top_k": 3})], None, "top_k 3", redraw=redraw_fn(16, (1, V), steps=3))
    tk = torch.tensor([[1.0, 3.0, 2.0, 2.0, 0.5, 2.0, -1.0, 3.0, 0.0, 1.5, 2.0, -2.0, 0.0, 0.25, 1.0, 0.0, -0.5]])
    s.add("top_k_ties_kept", V, [req({"seed": 17, "top_k": 3})], [tk, tk, tk],
          "ties at the k-th value are all kept (3 → 6 survivors)", exact=True)
    s.add("top_k_disabled_values", V, [req({"seed": 18, "top_k": 17}), req({"seed": 18, "top_k": -1}),
                                       req({"seed": 18, "top_k": 0})], None,
          "top_k ≥ V, -1 and 0 all mean off: the three rows are identical", redraw=redraw_fn(18, (1, V)) if False
          else (lambda a: [rnd(18000 + a, (1, V)).repeat(3, 1)]))
    s.add("top_k_1_is_argmax", V, [req({"seed": 19, "top_k": 1})], None, "top_k 1 keeps only the maximum",
          redraw=redraw_fn(19, (1, V), steps=2))
    s.add("top_p_v17", V, [req({"seed": 20, "top_p": 0.7})], None, "top_p 0.7",
          redraw=redraw_fn(20, (1, V), steps=3))
    eq = torch.full((1, V), NINF)
    eq[0, [2, 5, 8, 13]] = 1.0
    s.add("top_p_exact_boundary_ties", V, [req({"seed": 21, "top_p": 0.5})], [eq, eq, eq],
          "4 equal tokens, p 0.5: cumsum exactly 1-p is dropped; ties drop the lower index first", exact=True)
    s.add("top_p_tiny_keeps_top", V, [req({"seed": 22, "top_p": 1e-6})], None,
          "a tiny top_p keeps exactly the top token", redraw=redraw_fn(22, (1, V), steps=2))
    s.add("top_p_v3072", 3072, [req({"seed": 23, "top_p": 0.9})], None, "top_p 0.9 at V 3072",
          redraw=redraw_fn(23, (1, 3072), steps=2))

    # --- combined stages
    s.add("top_k_top_p_v3072", 3072, [req({"seed": 24, "top_k": 50, "top_p": 0.8, "temperature": 0.9})], None,
          "top-k then top-p on the survivors", redraw=redraw_fn(24, (1, 3072), steps=3))
    s.add("min_p_top_k_top_p_v2048", 2048,
          [req({"seed": 25, "temperature": 0.6, "min_p": 0.02, "top_k": 40, "top_p": 0.95})], None,
          "temperature → min_p → top-k → top-p", redraw=redraw_fn(25, (1, 2048), steps=2))
    s.add("all_stages_v3072", 3072,
          [req({"seed": 26, "temperature": 0.8, "top_k": 100, "top_p": 0.9, "min_p": 0.01,
                "repetition_penalty": 1.1, "frequency_penalty": 0.2, "presence_penalty": 0.1,
                "logit_bias": {"7": 1.5, "3000": -2.0}, "bad_words_token_ids": [[5], [11, 12]],
                "min_tokens": 3, "eos_token_id": 2150, "stop_token_ids": [2151]},
               prompt=[1, 2, 3, 7, 7], output=[11, 40])], None,
          "every stage at once over 4 steps", redraw=redraw_fn(26, (1, 3072), steps=4))
    s.add("multi_step_seeded_v17", V, [req({"seed": 27, "top_k": 5})], None,
          "one generator continues over 10 steps", redraw=redraw_fn(27, (1, V), steps=10))
    s.add("multi_step_history_penalties_v2048", 2048,
          [req({"seed": 28, "repetition_penalty": 1.05, "top_k": 50, "temperature": 0.9}, output=[3, 9])], None,
          "repetition over a history grown by teacher forcing", redraw=redraw_fn(28, (1, 2048), steps=6, scale=1.0))

    # --- batches
    s.add("mixed_greedy_and_seeded", V,
          [req({"temperature": 0.0}), req({"seed": 29}), req({"temperature": 0.0, "repetition_penalty": 1.4},
                                                              output=[1]), req({"seed": 30, "top_p": 0.6})],
          None, "greedy rows draw nothing; seeded rows use their own generators",
          redraw=redraw_fn(29, (4, V), steps=3))
    s.add("per_row_filters", 2048,
          [req({"seed": 31, "top_p": 0.5}), req({"seed": 32}), req({"seed": 33, "top_k": 10}),
           req({"seed": 34, "min_p": 0.1})], None,
          "each filter acts on its own row only", redraw=redraw_fn(31, (4, 2048), steps=2))
    s.add("seed_low_32_bits", V, [req({"seed": 1}), req({"seed": 2**32 + 1})], None,
          "seeds 1 and 2^32+1 give the same stream (same tokens)",
          redraw=lambda a: [rnd(35000 + a * 3 + i, (1, V)).repeat(2, 1) for i in range(3)])
    s.add("seed_63bit", 3072, [req({"seed": 2**63 - 1, "top_k": 50}), req({"seed": 0x5DEECE66D1234567, "top_k": 50})],
          None, "63-bit seeds", redraw=redraw_fn(36, (2, 3072), steps=2))
    s.add("batch8_v3072_top_k_50", 3072, [req({"seed": 100 + i, "top_k": 50, "temperature": 0.9}) for i in range(8)],
          None, "the benchmark shape: 8 rows, top_k 50", redraw=redraw_fn(37, (8, 3072), steps=2), processed=True)

    # --- Qwen3-TTS contract written as vLLM params
    talker = {"seed": 38, "temperature": 0.9, "top_k": 50, "repetition_penalty": 1.05, "eos_token_id": 2150,
              "min_tokens": 2, "allowed_token_ids": list(range(2048)) + [2150]}
    s.add("qwen3_tts_talker_v3072", 3072, [req(talker)], None,
          "codebook 0: 2048..3071 except EOS masked, EOS masked for 2 frames, repetition over earlier codes",
          redraw=redraw_fn(38, (1, 3072), steps=4, scale=2.0))
    s.add("qwen3_tts_predictor_v2048", 2048, [req({"seed": 39, "temperature": 0.9, "top_k": 50})], None,
          "codebooks 1..15: one generator, 15 draws of 2048", redraw=redraw_fn(39, (1, 2048), steps=15, scale=2.0),
          processed=False)

    # --- invalid parameters
    s.invalid("invalid_temperature_negative", V, {"temperature": -0.5}, "temperature", "negative temperature")
    s.invalid("invalid_top_p_zero", V, {"top_p": 0.0}, "top_p", "top_p 0")
    s.invalid("invalid_top_p_above_one", V, {"top_p": 1.5}, "top_p", "top_p 1.5")
    s.invalid("invalid_top_k_minus_2", V, {"top_k": -2}, "top_k", "top_k -2")
    s.invalid("invalid_min_p", V, {"min_p": 1.01}, "min_p", "min_p above 1")
    s.invalid("invalid_repetition_zero", V, {"repetition_penalty": 0.0}, "repetition_penalty", "repetition 0")
    s.invalid("invalid_presence", V, {"presence_penalty": 2.5}, "presence_penalty", "presence above 2")
    s.invalid("invalid_frequency", V, {"frequency_penalty": -2.01}, "frequency_penalty", "frequency below -2")
    s.invalid("invalid_min_tokens_negative", V, {"min_tokens": -1}, "min_tokens", "negative min_tokens")
    s.invalid("invalid_min_tokens_over_max", V, {"min_tokens": 5, "max_tokens": 4}, "min_tokens",
              "min_tokens above max_tokens")
    s.invalid("invalid_logit_bias_vocab", V, {"logit_bias": {"17": 1.0}}, "logit_bias", "logit_bias id = V")
    s.invalid("invalid_allowed_empty", V, {"allowed_token_ids": []}, "allowed_token_ids", "empty allowed set")
    s.invalid("invalid_allowed_vocab", 2048, {"allowed_token_ids": [0, 2048]}, "allowed_token_ids",
              "allowed id outside the vocabulary")
    print("wrote %d sampler cases to %s" % (s.count, os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
