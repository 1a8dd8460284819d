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
// 16-bit PCM WAV, decoded as one stream in pushes of --chunk frames. The
// file is written as NAME.partial and renamed to NAME when whole; a
// failure leaves no file; SIGINT or SIGTERM stops between pushes and leaves
// NAME.partial, a valid WAV of the frames decoded so far (partialFile).
// Under --wasm the decode is one guest call: a signal leaves no file.
type decodeCmd struct {
	Codes     string `arg:"" help:"Codes JSON as omni run writes it (\"-\" = stdin)."`
	Out       string `short:"o" required:"" help:"WAV file to write (\"-\" = stdout, sizes left unknown); written as NAME.partial, renamed to NAME when whole."`
	Codec     string `help:"Codec: a codec or checkpoint directory, or synth:SIZE[@SEED] (default: the codes file's model)."`
	Precision string `default:"auto" help:"${codec_precision_help} (${default})."`
	Chunk     int    `default:"25" help:"Decode this many frames per call, 0..${max_frames} (0 = all at once; the scratch grows with it, ≈ 3.7 MB per frame); the samples are the same either way (${default})."`
	Wasm      bool   `help:"Decode inside the WASI guest (the codec graph in wasm, its kernels as host functions, the weights loaded once on the host); the same samples."`
}

// readCodes reads a codes file (the JSON omni run writes): its model and
// frames, every frame 16 codes. A missing or empty "codes" list, a null
// frame or a null code is refused naming its position; the codec checks
// the values' ranges.
func readCodes(name string, in io.Reader) (model string, frames [][codec.Codebooks]int32, err error) {
	var cf struct {
		Model string             `json:"model"`
		Codes *[]json.RawMessage `json:"codes"`
	}
	if err := json.NewDecoder(in).Decode(&cf); err != nil {
		return "", nil, fmt.Errorf("decode %s: %w", name, err)
	}
	if cf.Codes == nil {
		return "", nil, fmt.Errorf("decode %s: no \"codes\" list (the JSON omni run writes has one)", name)
	}
	if len(*cf.Codes) == 0 {
		return "", nil, fmt.Errorf("decode %s: the \"codes\" list is empty: no frame to decode", name)
	}
	frames = make([][codec.Codebooks]int32, len(*cf.Codes))
	for i, raw := range *cf.Codes {
		var f []*int32
		if err := json.Unmarshal(raw, &f); err != nil {
			return "", nil, fmt.Errorf("decode %s: codes[%d]: %w", name, i, err)
		}
		if f == nil {
			return "", nil, fmt.Errorf("decode %s: codes[%d] is null, want %d codes", name, i, codec.Codebooks)
		}
		if len(f) != codec.Codebooks {
			return "", nil, fmt.Errorf("decode %s: codes[%d] has %d codebooks, the codec takes %d", name, i, len(f), codec.Codebooks)
		}
		for j, v := range f {
			if v == nil {
				return "", nil, fmt.Errorf("decode %s: codes[%d][%d] is null, want a code", name, i, j)
			}
			frames[i][j] = *v
		}
	}
	return cf.Model, frames, nil
}

// Run implements "omni decode".
func (c *decodeCmd) Run(g *Globals, ctx context.Context) error {
	if err := inRange("--chunk", c.Chunk, 0, maxFrames); err != nil {
		return err
	}
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
	model, frames, err := readCodes(c.Codes, in)
	if err != nil {
		return err
	}
	spec := c.Codec
	if spec == "" {
		spec = model
	}
	if spec == "" {
		return errors.New("decode: the codes file names no model; give --codec")
	}
	if c.Precision, err = resolveCodecPrecision(c.Precision); err != nil {
		return err
	}
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
	var file *partialFile
	if c.Out != "-" {
		if file, err = createPartial(c.Out); err != nil {
			return err
		}
		out = file
	}
	start = time.Now()
	done, err := decodeFrames(ctx, s, m, frames, c.Chunk, out)
	if file != nil {
		err = file.finish(err, ctx.Err() != nil)
	}
	if err != nil {
		return err
	}
	spf := m.SamplesPerFrame()
	el := time.Since(start)
	audioS := float64(done*spf) / float64(m.Config().SampleRate)
	fmt.Fprintf(g.Stderr, "decode: %d frames → %d samples (%.2f s of audio) in %s (%.1f ms per frame)\n",
		done, done*spf, audioS, el.Round(time.Millisecond), float64(el.Microseconds())/1e3/float64(max(done, 1)))
	if ctx.Err() != nil {
		where := "stdout"
		if file != nil {
			where = file.Name()
		}
		fmt.Fprintf(g.Stderr, "decode: interrupted after %d of %d frames; %s is a valid WAV of them\n", done, len(frames), where)
		return ctx.Err()
	}
	return nil
}

// decodeFrames decodes frames on s in pushes of chunk frames (0: all at
// once) and writes them to out as a WAV, checking ctx between pushes: a
// cancel stops there with the WAV closed (its sizes patched on a file). It
// returns the frames written.
func decodeFrames(ctx context.Context, s *codec.Stream, m *codec.Model, frames [][codec.Codebooks]int32, chunk int, out io.Writer) (int, error) {
	w, err := audio.NewWAVWriter(out, m.Config().SampleRate, 1)
	if err != nil {
		return 0, err
	}
	if chunk <= 0 || chunk > len(frames) {
		chunk = max(len(frames), 1)
	}
	spf := m.SamplesPerFrame()
	pcm := make([]float32, chunk*spf)
	done := 0
	for done < len(frames) && ctx.Err() == nil {
		n := min(chunk, len(frames)-done)
		if err := s.Decode(frames[done:done+n], pcm[:n*spf]); err != nil {
			return done, err
		}
		if err := w.Write(pcm[:n*spf]); err != nil {
			return done, err
		}
		done += n
	}
	return done, w.Close()
}
