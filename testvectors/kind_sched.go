package testvectors

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/omni-tts/omni/sched"
)

// runSched runs a "sched" case: {"fn", "args", "expect"}, the policy function
// fn on args compared with expect (integers exactly, floats with rtol 1e-9).
func runSched(c *Case, _ *Env) error {
	var fn string
	if err := c.Decode("fn", &fn); err != nil {
		return err
	}
	args, ok := c.Field("args")
	if !ok {
		return c.Decode("args", nil)
	}
	expect, ok := c.Field("expect")
	if !ok {
		return c.Decode("expect", nil)
	}
	h, ok := schedFns[fn]
	if !ok {
		return c.Errorf("fn", "unknown function %q (want one of %v)", fn, sortedKeys(schedFns))
	}
	return h(c, args, expect)
}

// schedFns maps each sched function name to its runner.
var schedFns = map[string]func(c *Case, args, expect json.RawMessage) error{
	"playback_slack":              schedSlack,
	"should_throttle_prefills":    schedThrottle,
	"kv_bytes_per_token":          schedBytesPerToken,
	"kv_bytes_for_seqs":           schedBytesForSeqs,
	"max_seqs_without_preemption": schedMaxSeqs,
	"derive_chunk_schedule":       schedDerive,
}

// required checks that the named pointer args were present.
func required(c *Case, fields map[string]bool) error {
	for _, k := range sortedKeys(fields) {
		if !fields[k] {
			return c.Errorf("args."+k, "required argument missing")
		}
	}
	return nil
}

// wantFloat compares a float result.
func wantFloat(c *Case, expect json.RawMessage, got float64) error {
	var w float64
	if err := c.decodeStrict("expect", expect, &w); err != nil {
		return err
	}
	if !closeRel(got, w) {
		return c.Errorf("expect", "got %v, want %v", got, w)
	}
	return nil
}

// wantInt compares an integer result exactly.
func wantInt(c *Case, expect json.RawMessage, got int64) error {
	var w int64
	if err := c.decodeStrict("expect", expect, &w); err != nil {
		return err
	}
	if got != w {
		return c.Errorf("expect", "got %d, want %d", got, w)
	}
	return nil
}

// pairs decodes [[a, b], ...] rows of two numbers.
func pairs(c *Case, field string, raw [][]float64) ([][2]float64, error) {
	out := make([][2]float64, len(raw))
	for i, p := range raw {
		if len(p) != 2 {
			return nil, c.Errorf(fmt.Sprintf("%s[%d]", field, i), "want [t_ms, value], got %d numbers", len(p))
		}
		out[i] = [2]float64{p[0], p[1]}
	}
	return out, nil
}

func schedSlack(c *Case, args, expect json.RawMessage) error {
	var a struct {
		Chunks  *[][]float64 `json:"chunks"`
		NowMS   *float64     `json:"now_ms"`
		StartMS *float64     `json:"start_ms"`
	}
	if err := c.decodeStrict("args", args, &a); err != nil {
		return err
	}
	if err := required(c, map[string]bool{"chunks": a.Chunks != nil, "now_ms": a.NowMS != nil}); err != nil {
		return err
	}
	ps, err := pairs(c, "args.chunks", *a.Chunks)
	if err != nil {
		return err
	}
	chunks := make([]sched.ChunkArrival, len(ps))
	for i, p := range ps {
		chunks[i] = sched.ChunkArrival{TMS: p[0], AudioMS: p[1]}
	}
	got := sched.PlaybackSlack(chunks, *a.NowMS)
	if a.StartMS != nil {
		got = sched.PlaybackSlackFrom(chunks, *a.NowMS, *a.StartMS)
	}
	return wantFloat(c, expect, got)
}

func schedThrottle(c *Case, args, expect json.RawMessage) error {
	var a struct {
		Slack  *float64 `json:"slack_ms"`
		ETA    *float64 `json:"next_chunk_eta_ms"`
		Margin *float64 `json:"margin_ms"`
	}
	if err := c.decodeStrict("args", args, &a); err != nil {
		return err
	}
	if err := required(c, map[string]bool{"slack_ms": a.Slack != nil, "next_chunk_eta_ms": a.ETA != nil, "margin_ms": a.Margin != nil}); err != nil {
		return err
	}
	var w bool
	if err := c.decodeStrict("expect", expect, &w); err != nil {
		return err
	}
	if got := sched.ShouldThrottlePrefills(*a.Slack, *a.ETA, *a.Margin); got != w {
		return c.Errorf("expect", "got %v, want %v", got, w)
	}
	return nil
}

func schedBytesPerToken(c *Case, args, expect json.RawMessage) error {
	var a struct {
		Layers  *int    `json:"num_layers"`
		KVHeads *int    `json:"num_kv_heads"`
		HeadDim *int    `json:"head_dim"`
		DType   *string `json:"dtype"`
	}
	if err := c.decodeStrict("args", args, &a); err != nil {
		return err
	}
	if err := required(c, map[string]bool{"num_layers": a.Layers != nil, "num_kv_heads": a.KVHeads != nil, "head_dim": a.HeadDim != nil, "dtype": a.DType != nil}); err != nil {
		return err
	}
	return wantInt(c, expect, sched.KVBytesPerToken(*a.Layers, *a.KVHeads, *a.HeadDim, *a.DType))
}

func schedBytesForSeqs(c *Case, args, expect json.RawMessage) error {
	var a struct {
		Seqs  *int   `json:"max_num_seqs"`
		Len   *int   `json:"max_model_len"`
		BPT   *int64 `json:"bytes_per_token"`
		Block *int   `json:"block_size"`
	}
	if err := c.decodeStrict("args", args, &a); err != nil {
		return err
	}
	if err := required(c, map[string]bool{"max_num_seqs": a.Seqs != nil, "max_model_len": a.Len != nil, "bytes_per_token": a.BPT != nil}); err != nil {
		return err
	}
	block, err := blockSize(c, a.Block)
	if err != nil {
		return err
	}
	return wantInt(c, expect, sched.KVBytesForSeqs(*a.Seqs, *a.Len, *a.BPT, block))
}

func schedMaxSeqs(c *Case, args, expect json.RawMessage) error {
	var a struct {
		KV    *int64 `json:"kv_cache_bytes"`
		Len   *int   `json:"max_model_len"`
		BPT   *int64 `json:"bytes_per_token"`
		Block *int   `json:"block_size"`
	}
	if err := c.decodeStrict("args", args, &a); err != nil {
		return err
	}
	if err := required(c, map[string]bool{"kv_cache_bytes": a.KV != nil, "max_model_len": a.Len != nil, "bytes_per_token": a.BPT != nil}); err != nil {
		return err
	}
	block, err := blockSize(c, a.Block)
	if err != nil {
		return err
	}
	return wantInt(c, expect, int64(sched.MaxSeqsWithoutPreemption(*a.KV, *a.Len, *a.BPT, block)))
}

// blockSize is the optional block_size argument (16 when absent).
func blockSize(c *Case, b *int) (int, error) {
	if b == nil {
		return sched.DefaultBlockSize, nil
	}
	if *b < 1 {
		return 0, c.Errorf("args.block_size", "%d, want ≥ 1", *b)
	}
	return *b, nil
}

func schedDerive(c *Case, args, expect json.RawMessage) error {
	var a struct {
		Chunks     *[][]float64 `json:"chunks"`
		SampleRate *int         `json:"sample_rate"`
		Steady     *int         `json:"steady_frames"`
		FrameMS    *float64     `json:"frame_ms"`
		JitterMS   *float64     `json:"jitter_ms"`
	}
	if err := c.decodeStrict("args", args, &a); err != nil {
		return err
	}
	if err := required(c, map[string]bool{"chunks": a.Chunks != nil, "sample_rate": a.SampleRate != nil}); err != nil {
		return err
	}
	ps, err := pairs(c, "args.chunks", *a.Chunks)
	if err != nil {
		return err
	}
	chunks := make([]sched.ChunkSamples, len(ps))
	for i, p := range ps {
		if p[1] != math.Trunc(p[1]) {
			return c.Errorf(fmt.Sprintf("args.chunks[%d]", i), "samples %v is not an integer", p[1])
		}
		chunks[i] = sched.ChunkSamples{TMS: p[0], Samples: int(p[1])}
	}
	o := sched.DefaultCalibrateOptions()
	if a.Steady != nil {
		o.SteadyFrames = *a.Steady
	}
	if a.FrameMS != nil {
		o.FrameMS = *a.FrameMS
	}
	if a.JitterMS != nil {
		o.JitterMS = *a.JitterMS
	}
	got, err := sched.DeriveChunkSchedule(chunks, *a.SampleRate, o)
	if err != nil {
		return c.Errorf("args", "%v", err)
	}
	var w struct {
		MinFrames *int     `json:"min_frames"`
		MarginMS  *float64 `json:"margin_ms"`
		Ramp      *[]int   `json:"ramp"`
		Adaptive  *bool    `json:"adaptive"`
	}
	if err := c.decodeStrict("expect", expect, &w); err != nil {
		return err
	}
	if w.MinFrames == nil || w.MarginMS == nil || w.Ramp == nil || w.Adaptive == nil {
		return c.Errorf("expect", "want all of min_frames, margin_ms, ramp, adaptive")
	}
	switch {
	case got.MinFrames != *w.MinFrames:
		return c.Errorf("expect.min_frames", "got %d, want %d", got.MinFrames, *w.MinFrames)
	case !closeRel(got.MarginMS, *w.MarginMS):
		return c.Errorf("expect.margin_ms", "got %v, want %v", got.MarginMS, *w.MarginMS)
	case !slices.Equal(got.Ramp, *w.Ramp):
		return c.Errorf("expect.ramp", "got %v, want %v", got.Ramp, *w.Ramp)
	case got.Adaptive != *w.Adaptive:
		return c.Errorf("expect.adaptive", "got %v, want %v (rtf %v)", got.Adaptive, *w.Adaptive, got.RTF)
	}
	return nil
}
