#!/usr/bin/python3
"""Writes testvectors/suites/stats/ and testvectors/suites/sched/.

An independent, plain-Python statement of the step-statistics and
edge-scheduling formulas of vLLM-Omni's edge modules (step_stats.py,
scheduling.py, calibrate.py and their tests), as docs/TESTVECTORS.md (kinds
stats and sched) and docs/SCHEDULING.md state them, not from omni's Go. Plain Python 3, no packages: /usr/bin/python3 gen_policy.py.
The suites are committed; tests and CI never run Python.
"""
import json
import math
import os
import random
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.path.join(HERE, "..", "suites")

# ---------------------------------------------------------------- stats

RESERVOIR = 20000
STRIDE = 7919
FRAME_MS = 80.0


def summarize(values):
    """One process's series: count/sum/max over all values, percentiles over
    a reservoir of 20000 where sample k (1-based) beyond the cap overwrites
    slot (k * 7919) % 20000. max starts at 0.0."""
    count, total, biggest, kept = 0, 0.0, 0.0, []
    for v in values:
        count += 1
        total += v
        biggest = v if v > biggest else biggest
        if len(kept) < RESERVOIR:
            kept.append(v)
        else:
            kept[(count * STRIDE) % RESERVOIR] = v
    ordered = sorted(kept)

    def pct(p):
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, int(round((len(ordered) - 1) * p)))]

    return {
        "count": count,
        "sum_ms": total,
        "mean_ms": total / count if count else 0.0,
        "p50_ms": pct(0.5),
        "p95_ms": pct(0.95),
        "max_ms": biggest,
    }


def merge(files):
    """Same role across processes: counts and sums add, mean = sum/count,
    p50/p95/max take the worst."""
    roles = {}
    for f in files:
        bucket = roles.setdefault(f["role"], {})
        for name, values in f["counters"].items():
            s = summarize(values)
            if name not in bucket:
                bucket[name] = s
                continue
            a = bucket[name]
            n = a["count"] + s["count"]
            total = a["sum_ms"] + s["sum_ms"]
            bucket[name] = {
                "count": n,
                "sum_ms": total,
                "mean_ms": total / n if n else 0.0,
                "p50_ms": max(a["p50_ms"], s["p50_ms"]),
                "p95_ms": max(a["p95_ms"], s["p95_ms"]),
                "max_ms": max(a["max_ms"], s["max_ms"]),
            }
    return roles


def attribution(roles, budget=FRAME_MS):
    rows = []
    for role in sorted(roles):
        for name in sorted(roles[role]):
            rows.append({"role": role, "counter": name,
                         "share_of_frame": roles[role][name]["mean_ms"] / budget})
    rows.sort(key=lambda r: -r["share_of_frame"])  # stable: ties stay by (role, counter)
    return rows


def stats_case(name, description, files, with_attribution=True):
    case = {"kind": "stats", "name": name, "description": description,
            "files": files, "expect": merge(files)}
    if with_attribution:
        case["expect_attribution"] = attribution(case["expect"])
    return case


def stats_cases():
    rng = random.Random(20260909)
    out = []
    out.append(stats_case(
        "stats_worked_merge",
        "tests/edge/test_step_stats.py: 1,2,3,4,100 in stage0 plus a second stage0 process (count 5, sum 5, p95 1)",
        [{"role": "stage0", "pid": 4242, "counters": {"sched.schedule_ms": [1, 2, 3, 4, 100]}},
         {"role": "stage0", "pid": 999, "counters": {"sched.schedule_ms": [1, 1, 1, 1, 1]}}]))
    out.append(stats_case(
        "stats_half_even_percentiles",
        "(n-1)*p lands on .5: Python's round goes to the even index",
        [{"role": "engine", "pid": 1, "counters": {
            "n2_ms": [7.0, 3.0],
            "n4_ms": [40.0, 10.0, 30.0, 20.0],
            "n6_ms": [60.0, 10.0, 50.0, 20.0, 40.0, 30.0],
            "n21_ms": [float(i) for i in range(21, 0, -1)],
            "n41_ms": [float((i * 17) % 41) for i in range(41)],
            "one_ms": [12.5]}}]))
    out.append(stats_case(
        "stats_negative_values",
        "max starts at 0.0, so an all-negative series reports max 0",
        [{"role": "engine", "pid": 2, "counters": {"delta_ms": [-3.0, -1.5, -2.25]}}]))
    vals = [round(rng.lognormvariate(0, 0.6) * 5, 6) for _ in range(RESERVOIR + 3517)]
    vals[RESERVOIR + 100] = 999.0  # a spike after the cap: in max, maybe not in the reservoir
    out.append(stats_case(
        "stats_reservoir_overwrite",
        "23517 samples: beyond 20000 each overwrites slot (count*7919) % 20000",
        [{"role": "stage0", "pid": 3, "counters": {"predictor.substep_ms": vals}}]))
    files = []
    for role, pids in (("stage0", (101, 102, 103)), ("stage1", (201,)), ("orchestrator", (301, 302))):
        for pid in pids:
            counters = {}
            for name, scale in (("core.step_ms", 90.0), ("sched.schedule_ms", 0.12), ("hop.put_ms", 0.5), ("hop.get_ms", 0.8)):
                if role == "orchestrator" and name.startswith("core"):
                    continue
                n = rng.randint(1, 300)
                counters[name] = [round(rng.gammavariate(2.0, scale / 2.0), 9) for _ in range(n)]
            files.append({"role": role, "pid": pid, "counters": counters})
    out.append(stats_case(
        "stats_multi_process_roles",
        "three roles, several processes each, float sums compared with rtol 1e-9",
        files))
    out.append(stats_case(
        "stats_attribution_ties",
        "equal shares: any order inside the tie is accepted",
        [{"role": "stage0", "pid": 1, "counters": {"a_ms": [8.0, 8.0], "b_ms": [4.0, 12.0], "c_ms": [40.0]}},
         {"role": "stage1", "pid": 2, "counters": {"a_ms": [16.0, 0.0], "d_ms": [0.5]}}]))
    out.append(stats_case(
        "stats_no_attribution",
        "expect_attribution is optional",
        [{"role": "engine", "pid": 9, "counters": {"x_ms": [0.25, 0.5, 0.75]}}], with_attribution=False))
    return out

# ---------------------------------------------------------------- sched

DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "fp8": 1, "float8_e4m3fn": 1, "auto": 2}


def playback_slack(chunks, now, start=None):
    if not chunks:
        return 0.0
    if start is None:
        start = chunks[0][0]
    return sum(a for t, a in chunks if t <= now) - max(0.0, now - start)


def kv_bytes_per_token(layers, kv_heads, head_dim, dtype):
    return 2 * layers * kv_heads * head_dim * DTYPE_BYTES.get(dtype, 2)


def kv_bytes_for_seqs(n, max_len, bpt, block=16):
    return n * math.ceil(max_len / block) * block * bpt


def max_seqs(kv, max_len, bpt, block=16):
    one = kv_bytes_for_seqs(1, max_len, bpt, block)
    return kv // one if one else 0


def fps(chunks, sr):
    audio = [c for c in chunks if c[1] > 0]
    if len(audio) < 2:
        return None
    frames = sum(s for _, s in audio[1:]) / sr * 1000.0 / FRAME_MS
    wall = (audio[-1][0] - audio[0][0]) / 1000.0
    return frames / wall if wall > 0 else None


def derive(chunks, sr, steady=25, frame_ms=80.0, jitter=40.0):
    rate = fps(chunks, sr)
    if not rate:
        return {"min_frames": 2, "margin_ms": 50.0, "ramp": [2, 4, 8, 16, steady], "adaptive": True}
    rtf = (1000.0 / frame_ms) / rate
    produce = 1000.0 / rate
    lead = jitter + max(0.0, produce - frame_ms) * steady
    min_frames = max(1, min(steady, math.ceil(lead / frame_ms)))
    margin = max(20.0, min(400.0, jitter + produce))
    ramp, n = [], min_frames
    while n < steady:
        ramp.append(n)
        n *= 2
    ramp.append(steady)
    if len(ramp) < 2:
        ramp = [steady // 2, steady]
    return {"min_frames": min_frames, "margin_ms": margin, "ramp": ramp, "adaptive": rtf > 0.5}


def request(fps_, frames, t0=25.0, ramp=(2, 4, 8, 16, 25), steady=25, sr=24000):
    """Chunk arrivals of a generator at fps_ frames per second."""
    out, done, i = [], 0, 0
    while done < frames:
        end = min(sum(ramp[:i + 1]) if i < len(ramp) else sum(ramp) + (i + 1 - len(ramp)) * steady, frames)
        out.append([t0 + end * 1000.0 / fps_, (end - done) * sr * 80 // 1000])
        done, i = end, i + 1
    return out


def sched_case(name, fn, args, expect, description=""):
    c = {"kind": "sched", "name": name, "fn": fn, "args": args, "expect": expect}
    if description:
        c["description"] = description
    return c


def sched_cases():
    out = []
    chunks = [[30, 80], [190, 2000]]
    for now in (30, 110, 150, 190, 20, 1000):
        out.append(sched_case(f"slack_worked_{now}", "playback_slack", {"chunks": chunks, "now_ms": now},
                              playback_slack(chunks, now), "test_playback_slack_tracks_buffered_audio_minus_elapsed"))
    ramp = [[42, 160], [200, 320]]
    out.append(sched_case("slack_ramp_199", "playback_slack", {"chunks": ramp, "now_ms": 199}, playback_slack(ramp, 199)))
    out.append(sched_case("slack_empty", "playback_slack", {"chunks": [], "now_ms": 500}, 0.0))
    out.append(sched_case("slack_start_given", "playback_slack", {"chunks": chunks, "now_ms": 150, "start_ms": 0},
                          playback_slack(chunks, 150, 0)))
    out.append(sched_case("slack_fractional", "playback_slack",
                          {"chunks": [[12.5, 160.25], [101.75, 320.5], [333.3, 640.125]], "now_ms": 250.125},
                          playback_slack([[12.5, 160.25], [101.75, 320.5], [333.3, 640.125]], 250.125)))
    for i, (s, e, m) in enumerate(((50, 40, 20), (500, 160, 20), (-10, 0, 0), (60, 40, 20), (60.5, 40, 20))):
        out.append(sched_case(f"throttle_{i}", "should_throttle_prefills",
                              {"slack_ms": s, "next_chunk_eta_ms": e, "margin_ms": m}, s - e < m))
    for dt in ("bfloat16", "float32", "float16", "fp8", "float8_e4m3fn", "auto", "int4"):
        out.append(sched_case(f"kv_bpt_talker_{dt}", "kv_bytes_per_token",
                              {"num_layers": 28, "num_kv_heads": 8, "head_dim": 128, "dtype": dt},
                              kv_bytes_per_token(28, 8, 128, dt)))
    out.append(sched_case("kv_bpt_predictor_bf16", "kv_bytes_per_token",
                          {"num_layers": 5, "num_kv_heads": 8, "head_dim": 128, "dtype": "bfloat16"},
                          kv_bytes_per_token(5, 8, 128, "bfloat16")))
    bpt = kv_bytes_per_token(28, 8, 128, "bfloat16")
    out.append(sched_case("kv_seqs_block_roundup", "kv_bytes_for_seqs",
                          {"max_num_seqs": 1, "max_model_len": 17, "bytes_per_token": 100, "block_size": 16}, 32 * 100))
    out.append(sched_case("kv_seqs_default_block", "kv_bytes_for_seqs",
                          {"max_num_seqs": 3, "max_model_len": 1000, "bytes_per_token": bpt},
                          kv_bytes_for_seqs(3, 1000, bpt)))
    out.append(sched_case("kv_seqs_4x2048", "kv_bytes_for_seqs",
                          {"max_num_seqs": 4, "max_model_len": 2048, "bytes_per_token": bpt, "block_size": 16},
                          kv_bytes_for_seqs(4, 2048, bpt)))
    out.append(sched_case("kv_seqs_block_32", "kv_bytes_for_seqs",
                          {"max_num_seqs": 2, "max_model_len": 4097, "bytes_per_token": bpt, "block_size": 32},
                          kv_bytes_for_seqs(2, 4097, bpt, 32)))
    need = kv_bytes_for_seqs(4, 2048, bpt)
    for label, kv in (("need", need), ("need_minus_1", need - 1), ("zero", 0), ("640MiB", 640 << 20), ("14GiB", 14 << 30)):
        out.append(sched_case(f"max_seqs_{label}", "max_seqs_without_preemption",
                              {"kv_cache_bytes": kv, "max_model_len": 2048, "bytes_per_token": bpt},
                              max_seqs(kv, 2048, bpt)))
    out.append(sched_case("max_seqs_block_8", "max_seqs_without_preemption",
                          {"kv_cache_bytes": 10 ** 9, "max_model_len": 1001, "bytes_per_token": bpt, "block_size": 8},
                          max_seqs(10 ** 9, 1001, bpt, 8)))
    sr = 24000
    l20x = [[30, 1920], [190, 48000], [350, 48000]]
    out.append(sched_case("derive_l20x_shape", "derive_chunk_schedule", {"chunks": l20x, "sample_rate": sr},
                          derive(l20x, sr), "1, 25, 25 frames at 30/190/350 ms"))
    for f in (150, 40, 14, 12.5, 11, 10, 6, 1):
        req = request(f, 200)
        out.append(sched_case(f"derive_generator_{f}fps".replace(".", "_"), "derive_chunk_schedule",
                              {"chunks": req, "sample_rate": sr}, derive(req, sr)))
    req = request(10, 120)
    out.append(sched_case("derive_slow_custom", "derive_chunk_schedule",
                          {"chunks": req, "sample_rate": sr, "steady_frames": 20, "frame_ms": 80, "jitter_ms": 60},
                          derive(req, sr, 20, 80.0, 60.0)))
    out.append(sched_case("derive_with_silent_chunks", "derive_chunk_schedule",
                          {"chunks": [[10, 0], [40, 3840], [60, 0], [200, 19200], [420, 19200]], "sample_rate": sr},
                          derive([[10, 0], [40, 3840], [60, 0], [200, 19200], [420, 19200]], sr)))
    out.append(sched_case("derive_unmeasurable", "derive_chunk_schedule",
                          {"chunks": [[30, 1920]], "sample_rate": sr}, derive([[30, 1920]], sr)))
    out.append(sched_case("derive_unmeasurable_steady_16", "derive_chunk_schedule",
                          {"chunks": [], "sample_rate": sr, "steady_frames": 16}, derive([], sr, 16)))
    return out


def write_suite(name, cases):
    d = os.path.join(SUITES, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    seen = set()
    for c in cases:
        assert c["name"] not in seen, c["name"]
        seen.add(c["name"])
        with open(os.path.join(d, c["name"] + ".json"), "w") as f:
            json.dump(c, f, indent=1)
            f.write("\n")
    print(f"{name}: {len(cases)} cases")


if __name__ == "__main__":
    write_suite("stats", stats_cases())
    write_suite("sched", sched_cases())
