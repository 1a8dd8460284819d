package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/host"
)

// runWASI is "omni decode --wasm": the codec loaded on the host, the frames
// decoded in the WASI guest in pushes of --chunk, the samples written as
// the native path writes them.
func (c *decodeCmd) runWASI(g *Globals, ctx context.Context, spec string, frames [][codec.Codebooks]int32) error {
	chunk := c.Chunk
	if chunk <= 0 || chunk > len(frames) {
		chunk = max(len(frames), 1)
	}
	var pushes []int
	for at := 0; at < len(frames); at += chunk {
		pushes = append(pushes, min(chunk, len(frames)-at))
	}
	start := time.Now()
	pcm, cfg, err := host.CodecDecode(ctx, host.CodecDecodeOptions{
		Load:    func(b codec.Backend) (*codec.Model, error) { return openCodec(spec, b, c.Precision) },
		Codes:   frames,
		Pushes:  pushes,
		Threads: g.kernelThreads(),
	})
	if err != nil {
		return err
	}
	el := time.Since(start)
	var out io.Writer = g.Stdout
	var file *os.File
	if c.Out != "-" {
		if file, err = os.Create(c.Out); err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	w, err := audio.NewWAVWriter(out, cfg.SampleRate, 1)
	if err != nil {
		return err
	}
	if err := w.Write(pcm); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return err
		}
	}
	fmt.Fprintf(g.Stderr, "decode: %d frames → %d samples (%.2f s of audio) in the WASI guest in %s (codec %s %s: host load, guest replay and decode)\n",
		len(frames), len(pcm), float64(len(pcm))/float64(cfg.SampleRate), el.Round(time.Millisecond), spec, c.Precision)
	return nil
}
