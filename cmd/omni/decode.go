package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// decodeCmd is "omni decode": codec frames (the JSON omni run writes) to a
// 16-bit PCM WAV, decoded as one stream in pushes of --chunk frames.
type decodeCmd struct {
	Codes     string `arg:"" help:"Codes JSON as omni run writes it (\"-\" = stdin)."`
	Out       string `short:"o" required:"" help:"WAV file to write (\"-\" = stdout, sizes left unknown)."`
	Codec     string `help:"Codec: a codec or checkpoint directory, or synth:SIZE[@SEED] (default: the codes file's model)."`
	Precision string `default:"auto" enum:"auto,fp32,bf16,int8,mixed" help:"Codec precision: ${enum}; auto is bf16 where the kernels compute in bf16 (AVX-512 BF16), else fp32; bf16 stores the weights in bfloat16 (computed in bf16 on AVX-512 BF16, else in fp32); mixed is int8 for the layers of at most 32 rows per frame, fp32 for the rest (${default})."`
	Chunk     int    `default:"25" help:"Decode this many frames per call (0 = all at once; the scratch grows with it, ≈ 3.7 MB per frame); the samples are the same either way (${default})."`
	Wasm      bool   `help:"Decode inside the WASI guest (the codec graph in wasm, its kernels as host functions, the weights loaded once on the host); the same samples."`
}

// Run implements "omni decode".
func (c *decodeCmd) Run(g *Globals, ctx context.Context) error {
	if err := applyKernels(g); err != nil {
		return err
	}
	var in io.Reader = os.Stdin
	if c.Codes != "-" {
		f, err := os.Open(c.Codes)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	var cf struct {
		Model string            `json:"model"`
		Codes []json.RawMessage `json:"codes"`
	}
	if err := json.NewDecoder(in).Decode(&cf); err != nil {
		return fmt.Errorf("decode %s: %w", c.Codes, err)
	}
	frames := make([][codec.Codebooks]int32, len(cf.Codes))
	for i, raw := range cf.Codes {
		var f []int32
		if err := json.Unmarshal(raw, &f); err != nil {
			return fmt.Errorf("decode %s: codes[%d]: %w", c.Codes, i, err)
		}
		if len(f) != codec.Codebooks {
			return fmt.Errorf("decode %s: codes[%d] has %d codebooks, the codec takes %d", c.Codes, i, len(f), codec.Codebooks)
		}
		copy(frames[i][:], f)
	}
	spec := c.Codec
	if spec == "" {
		spec = cf.Model
	}
	if spec == "" {
		return errors.New("decode: the codes file names no model; give --codec")
	}
	c.Precision = resolveCodecPrecision(c.Precision)
	if c.Wasm {
		return c.runWASI(g, ctx, spec, frames)
	}
	b := simd.NewBackend(g.kernelThreads())
	defer b.Close()
	start := time.Now()
	m, err := openCodec(spec, b, c.Precision)
	if err != nil {
		return err
	}
	defer m.Close()
	fmt.Fprintf(g.Stderr, "decode: codec %s (%s) loaded in %s\n", spec, c.Precision, time.Since(start).Round(time.Millisecond))
	s, err := m.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()

	var out io.Writer = g.Stdout
	var file *os.File
	if c.Out != "-" {
		if file, err = os.Create(c.Out); err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	w, err := audio.NewWAVWriter(out, m.Config().SampleRate, 1)
	if err != nil {
		return err
	}
	chunk := c.Chunk
	if chunk <= 0 || chunk > len(frames) {
		chunk = max(len(frames), 1)
	}
	spf := m.SamplesPerFrame()
	pcm := make([]float32, chunk*spf)
	start = time.Now()
	for at := 0; at < len(frames); at += chunk {
		n := min(chunk, len(frames)-at)
		if err := s.Decode(frames[at:at+n], pcm[:n*spf]); err != nil {
			return err
		}
		if err := w.Write(pcm[:n*spf]); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return err
		}
	}
	el := time.Since(start)
	audioS := float64(len(frames)*spf) / float64(m.Config().SampleRate)
	fmt.Fprintf(g.Stderr, "decode: %d frames → %d samples (%.2f s of audio) in %s (%.1f ms per frame)\n",
		len(frames), len(frames)*spf, audioS, el.Round(time.Millisecond), float64(el.Microseconds())/1e3/float64(max(len(frames), 1)))
	return nil
}
