package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/predictor"
)

// modelSynthCmd writes a synthetic model as a Hugging Face checkpoint.
type modelSynthCmd struct {
	Size     string `help:"Model size: ${enum}." enum:"tiny,tiny-wide,0.6b,1.7b" required:""`
	Variant  string `help:"Model variant: ${enum} (base: the voice-cloning model, with a speaker encoder and no speaker table; not for tiny-wide) (${default})." enum:"custom-voice,base" default:"custom-voice"`
	Outliers bool   `help:"Give 6 hidden channels RMSNorm gains of 20-60 (trained-LLM outlier channels)."`
	Seed     uint64 `help:"Seed of the weights." default:"1"`
	Out      string `help:"Directory to write (config.json, generation_config.json, model.safetensors)." required:"" type:"path"`
	Codec    bool   `help:"Also write speech_tokenizer/: a synthetic codec, decoder and encoder (real geometry for 0.6b and 1.7b, 682 MB F32; a tiny geometry with the real interface otherwise)." default:"true" negatable:""`
}

// Run implements "omni model synth".
func (c *modelSynthCmd) Run(g *Globals, _ context.Context) error {
	size := c.Size
	if c.Variant == "base" {
		size += predictor.BaseSuffix
	}
	src, err := predictor.NewSynth(size, c.Outliers, c.Seed)
	if err != nil {
		return err
	}
	defer src.Close()
	var n, bytes int64
	for _, t := range src.Tensors() {
		n++
		bytes += 2 * t.Elems()
	}
	fmt.Fprintf(g.Stderr, "writing %d tensors of synth:%s (%.2f GB bf16) to %s\n", n, size, float64(bytes)/1e9, c.Out)
	start := time.Now()
	if err := predictor.WriteHF(src, c.Out); err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "%s: %d tensors, %d bytes of bf16 weights (%s)\n", c.Out, n, bytes, time.Since(start).Round(time.Millisecond))
	if !c.Codec {
		return nil
	}
	cfg := host.SynthCodecConfig(c.Size) // the codec host.Open gives synth:SIZE
	enc := host.SynthEncoderConfig(c.Size)

	start = time.Now()
	dir := filepath.Join(c.Out, "speech_tokenizer")
	if err := codec.WriteSyntheticCodec(dir, cfg, &enc, c.Seed); err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "%s: synthetic codec (decoder and encoder), %d tensors F32 (%s)\n", dir,
		len(codec.ExpectedTensors(&cfg))+len(codec.EncoderTensors(&enc)), time.Since(start).Round(time.Millisecond))
	return nil
}
