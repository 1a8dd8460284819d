package main

import (
	"context"
	"fmt"
	"io"
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
	var file *partialFile
	if c.Out != "-" {
		if file, err = createPartial(c.Out); err != nil {
			return err
		}
		out = file
	}
	err = writeWAV(out, cfg.SampleRate, pcm)
	if file != nil {
		err = file.finish(err, false)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(g.Stderr, "decode: %d frames → %d samples (%.2f s of audio) in the WASI guest in %s (codec %s %s: host load, guest replay and decode)\n",
		len(frames), len(pcm), float64(len(pcm))/float64(cfg.SampleRate), el.Round(time.Millisecond), spec, c.Precision)
	return nil
}

// writeWAV writes pcm to out as a mono 16-bit WAV.
func writeWAV(out io.Writer, rate int, pcm []float32) error {
	w, err := audio.NewWAVWriter(out, rate, 1)
	if err != nil {
		return err
	}
	if err := w.Write(pcm); err != nil {
		return err
	}
	return w.Close()
}
