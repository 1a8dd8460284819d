package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/safetensors"
)

// modelInspectCmd describes a model: its geometry and every tensor, and
// checks every float value for NaN and infinity (what run would refuse).
type modelInspectCmd struct {
	Model string `arg:"" help:"Checkpoint directory, pulled hub id ORG/NAME[@REV], or synth:SIZE[+outliers][@SEED]."`
	JSON  bool   `help:"Print one JSON object."`
	Read  bool   `help:"Also read every tensor once through the loader path (ReadF32) and report the time."`
}

// inspectReport is the --json output of "omni model inspect".
type inspectReport struct {
	Model        string                     `json:"model"`
	Size         string                     `json:"size"`
	Talker       predictor.DecoderConfig    `json:"talker"`
	Predictor    predictor.DecoderConfig    `json:"predictor"`
	Projection   bool                       `json:"small_to_mtp_projection"`
	Vocab        map[string]int             `json:"vocab"`
	Generation   predictor.GenerationConfig `json:"generation"`
	TensorCount  int                        `json:"tensor_count"`
	Parameters   int64                      `json:"parameters"`
	TotalBytes   int64                      `json:"total_bytes"`
	Tensors      []inspectTensor            `json:"tensors"`
	NonFinite    []predictor.NonFinite      `json:"non_finite"`
	ReadSeconds  float64                    `json:"read_seconds,omitempty"`
	ReadGBPerSec float64                    `json:"read_gb_per_s,omitempty"`
	Languages    []string                   `json:"languages"`
	Speakers     []string                   `json:"speakers"`
	ModelType    string                     `json:"model_type"`
}

type inspectTensor struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Bytes int64  `json:"bytes"`
}

// Run implements "omni model inspect".
func (c *modelInspectCmd) Run(g *Globals, _ context.Context) error {
	// OpenModel already refuses a NaN or infinity in a norm weight or the
	// text embedding table, naming the tensor and the element.
	src, err := host.OpenModel(c.Model)
	if err != nil {
		return err
	}
	defer src.Close()
	cfg := src.Config()
	r := inspectReport{
		Model: c.Model, Size: cfg.ModelSize, Talker: cfg.Talker, Predictor: cfg.Predictor,
		Projection: cfg.HasProjection(), Generation: cfg.Generation,
		Vocab: map[string]int{
			"talker": cfg.TalkerVocab, "predictor": cfg.PredictorVocab, "code_groups": cfg.CodeGroups,
			"text": cfg.TextVocab, "text_hidden": cfg.TextHidden,
		},
	}
	ids := core.IDsFromConfig(cfg)
	r.Languages, r.Speakers, r.ModelType = ids.LanguageNames(), ids.SpeakerNames(), ids.ModelKind
	ts := src.Tensors()
	for _, t := range ts {
		r.Tensors = append(r.Tensors, inspectTensor{Name: t.Name, DType: string(t.DType), Shape: t.Shape, Bytes: t.Size})
		r.Parameters += t.Elems()
		r.TotalBytes += t.Size
	}
	r.TensorCount = len(ts)
	if r.NonFinite, err = predictor.ScanFinite(src); err != nil {
		return err
	}
	if c.Read {
		start := time.Now()
		var buf []float32
		var floats int64
		for _, t := range ts {
			if !t.DType.IsFloat() || t.DType == safetensors.F64 {
				continue
			}
			buf = slices.Grow(buf[:0], int(t.Elems()))[:t.Elems()]
			if err := src.ReadF32(t.Name, buf); err != nil {
				return err
			}
			floats += t.Elems()
		}
		r.ReadSeconds = time.Since(start).Seconds()
		r.ReadGBPerSec = float64(4*floats) / 1e9 / r.ReadSeconds
	}
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
		return nonFiniteError(c.Model, r.NonFinite)
	}
	w := g.Stdout
	fmt.Fprintf(w, "model %s (size %s)\n", r.Model, r.Size)
	for _, d := range []struct {
		name string
		c    predictor.DecoderConfig
	}{{"talker", cfg.Talker}, {"predictor", cfg.Predictor}} {
		fmt.Fprintf(w, "%-9s %d layers, hidden %d, intermediate %d, heads %d/%d of %d, rms_eps %g, rope_theta %g, max_pos %d\n",
			d.name, d.c.Layers, d.c.Hidden, d.c.Intermediate, d.c.Heads, d.c.KVHeads, d.c.HeadDim, d.c.RMSEps, d.c.RopeTheta, d.c.MaxPositions)
	}
	fmt.Fprintf(w, "vocab     talker %d, predictor %d × %d code groups, text %d (hidden %d); small_to_mtp_projection %v\n",
		cfg.TalkerVocab, cfg.PredictorVocab, cfg.CodeGroups, cfg.TextVocab, cfg.TextHidden, r.Projection)
	fmt.Fprintf(w, "ids       codec pad %d bos %d eos %d think %d nothink %d think_bos %d think_eos %d; tts pad %d bos %d eos %d\n",
		cfg.CodecPad, cfg.CodecBos, cfg.CodecEos, cfg.CodecThink, cfg.CodecNothink, cfg.CodecThinkBos, cfg.CodecThinkEos,
		cfg.TTSPad, cfg.TTSBos, cfg.TTSEos)
	fmt.Fprintf(w, "type      %s (takes an instruction: %v, default layout %s)\n", orNone(r.ModelType), ids.TakesInstruct, core.DefaultLayout(ids.ModelKind))
	fmt.Fprintf(w, "languages %s\n", strings.Join(r.Languages, ", "))
	fmt.Fprintf(w, "speakers  %s\n", orNone(strings.Join(r.Speakers, ", ")))
	fmt.Fprintf(w, "tensors   %d, %d parameters, %d bytes\n", r.TensorCount, r.Parameters, r.TotalBytes)
	for _, t := range r.Tensors {
		fmt.Fprintf(w, "  %-62s %-5s %-14s %d\n", t.Name, t.DType, fmt.Sprint(t.Shape), t.Bytes)
	}
	if c.Read {
		fmt.Fprintf(w, "read      every float tensor once: %.2f s, %.2f GB/s of float32 output\n", r.ReadSeconds, r.ReadGBPerSec)
	}
	if len(r.NonFinite) == 0 {
		fmt.Fprintf(w, "finite    every float value checked: no NaN or infinity\n")
	}
	for _, nf := range r.NonFinite {
		fmt.Fprintf(w, "NON-FINITE %s: %d values, first [%d] = %v\n", nf.Name, nf.Count, nf.First, nf.Value)
	}
	return nonFiniteError(c.Model, r.NonFinite)
}

// nonFiniteError is the command's error when tensors hold NaN or infinity
// (nil when none do): omni run refuses such a model at load.
func nonFiniteError(model string, bad []predictor.NonFinite) error {
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("model %s: %d tensors hold NaN or infinity, first %s [%d] = %v (run refuses this model)",
		model, len(bad), bad[0].Name, bad[0].First, bad[0].Value)
}

// orNone returns s, or "none" when empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
