package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/audio/oggopus"
	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/stats"
	"github.com/omni-tts/omni/voice"
)

// sayCmd is "omni say": text to audio, written as it is made (a WAV a
// player accepts while its length is unknown; the sizes patched at the end
// when the output is a file), a progress line per chunk on stderr and the
// time-to-first-audio attribution and step attribution at the end. The
// file is written as NAME.partial and renamed to NAME when the stream ends
// well; a failure leaves no file; Ctrl-C or SIGTERM ends the stream and
// leaves NAME.partial, a valid file of the audio made so far (partialFile).
type sayCmd struct {
	engineFlags
	requestFlags
	longFlags
	cloneFlags
	Text      string  `arg:"" optional:"" help:"The text to speak (\"-\" = read it from stdin)."`
	Out       string  `short:"o" required:"" help:"Output file (\"-\" = stdout); written as NAME.partial, renamed to NAME when whole."`
	Format    string  `help:"Output format, 24 kHz mono: wav (16-bit PCM WAV), pcm (raw s16le), mp3, flac, opus (Ogg Opus; every format serve writes) or f32 (raw float32 LE); default: from the -o extension (.wav .pcm .mp3 .flac .opus .f32), else wav."`
	MaxFrames int     `name:"max-frames" default:"0" help:"Frame cap, 0..${max_frames} (0 = derived from the text length) (${default})."`
	Speed     float64 `default:"1" help:"Playback speed, 0.25..4, pitch kept (WSOLA, as serve's speed); 1 writes the engine's samples untouched (${default})."`
	Wasm      bool    `help:"Run the engine as the WASI guest (the codec stage inline in the guest; the same samples)."`
	Quiet     bool    `short:"q" help:"No progress lines."`
}

// pcmSink writes samples in one of the output formats.
type pcmSink interface {
	Write(pcm []float32) error
	Close() error
}

// rawSink writes raw little-endian samples (s16le or f32le).
type rawSink struct {
	w   io.Writer
	f32 bool
	buf []byte
}

// Write implements pcmSink.
func (r *rawSink) Write(pcm []float32) error {
	n := 2
	if r.f32 {
		n = 4
	}
	if cap(r.buf) < n*len(pcm) {
		r.buf = make([]byte, n*len(pcm))
	}
	b := r.buf[:n*len(pcm)]
	if r.f32 {
		for i, x := range pcm {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
	} else {
		b = audio.AppendS16LE(b[:0], pcm)
	}
	_, err := r.w.Write(b)
	return err
}

// encoderSink writes samples through one of audio's encoders (mp3, flac).
type encoderSink struct {
	w   io.Writer
	enc audio.Encoder
}

// Write implements pcmSink.
func (e *encoderSink) Write(pcm []float32) error { return e.enc.Encode(e.w, pcm) }

// Close implements pcmSink: the encoder's held-back tail.
func (e *encoderSink) Close() error { return e.enc.Finish(e.w) }

// sayFormat is the output format: --format, else the -o extension, else wav.
func sayFormat(format, out string) (string, error) {
	if format == "" {
		switch ext := strings.ToLower(filepath.Ext(out)); ext {
		case ".pcm", ".mp3", ".flac", ".opus", ".f32":
			return ext[1:], nil
		}
		return "wav", nil
	}
	switch format {
	case "wav", "pcm", "mp3", "flac", "opus", "f32":
		return format, nil
	}
	return "", fmt.Errorf("--format %q: want wav, pcm, mp3, flac, opus or f32", format)
}

// Close implements pcmSink.
func (r *rawSink) Close() error { return nil }

// flushWriter is a buffered writer its owner flushes after each chunk.
type flushWriter struct{ w *bufio.Writer }

// Write implements io.Writer.
func (f *flushWriter) Write(p []byte) (int, error) { return f.w.Write(p) }

// flushSink flushes the pipe after every chunk and at Close.
type flushSink struct {
	pcmSink
	f *flushWriter
}

// Write implements pcmSink.
func (s *flushSink) Write(pcm []float32) error {
	if err := s.pcmSink.Write(pcm); err != nil {
		return err
	}
	return s.f.w.Flush()
}

// Close implements pcmSink.
func (s *flushSink) Close() error {
	if err := s.pcmSink.Close(); err != nil {
		return err
	}
	return s.f.w.Flush()
}

// Run implements "omni say".
func (c *sayCmd) Run(g *Globals, ctx context.Context) error {
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "say: "+format+"\n", a...) }
	if c.Quiet {
		logf = func(string, ...any) {}
	}
	if err := inRange("--max-frames", c.MaxFrames, 0, maxFrames); err != nil {
		return err
	}
	if c.Speed < audio.MinSpeed || c.Speed > audio.MaxSpeed || c.Speed != c.Speed {
		return fmt.Errorf("say: --speed %g outside [%g, %g]", c.Speed, audio.MinSpeed, audio.MaxSpeed)
	}
	format, err := sayFormat(c.Format, c.Out)
	if err != nil {
		return err
	}
	if err := c.cloneFlags.check(); err != nil {
		return err
	}
	text, err := c.text(g)
	if err != nil {
		return err
	}
	var cloned *voice.Voice
	if c.cloning() {
		t0 := time.Now()
		lv, err := c.cloneFlags.libraryVoice() // read once: cloneModel and prepared share it
		if err != nil {
			return err
		}
		m, err := c.cloneFlags.cloneModel(c.Model, lv)
		if err != nil {
			return err
		}
		if m != c.Model {
			logf("model %s (the voice's; --model overrides it)", m)
			c.Model = m
		}
		if cloned, err = c.cloneFlags.prepared(c.Model, lv, g.kernelThreads()); err != nil {
			return err
		}
		logf("voice %s: %s, %.2f s reference (%.0f ms)", cloned.Name, voiceMode(cloned), cloned.RefSeconds, float64(time.Since(t0).Microseconds())/1e3)
	}
	if c.TextFile != "" || c.Text == "-" {
		return c.runLong(g, ctx, logf, text, format, cloned)
	}
	mode := host.Native
	if c.Wasm {
		mode = host.WASI
	}
	c.audio = true
	e, err := c.openEngine(ctx, g, 1, mode, logf)
	if err != nil {
		return err
	}
	defer e.Close()

	t0 := time.Now()
	req, err := e.Request(c.sayInput(text, cloned))
	if err != nil {
		return err
	}
	tokMS := float64(time.Since(t0).Microseconds()) / 1e3
	req.ID, req.MaxFrames = "say", c.MaxFrames
	if err := c.sampling(&req); err != nil {
		return err
	}

	sink, file, err := c.openSink(g, format)
	if err != nil {
		return err
	}
	res, err := speak(ctx, e, req, sink, logf)
	if cerr := sink.Close(); err == nil {
		err = cerr
	}
	if err == nil && res.end.Reason == core.EndError {
		err = res.end.Err
	}
	if file != nil {
		err = file.finish(err, ctx.Err() != nil)
	}
	if err != nil {
		return contextInWords("say", text, err)
	}
	pb := core.Playback(res.stream.Submitted(), res.stream.Arrivals())
	wall := res.wall.Seconds()
	audioS := float64(res.samples) / 24000
	logf("ended by %s after %d frames (%.2f s of audio, %d samples) in %.2f s: RTF %.2f, TTFA %.0f ms, %d stall(s) after the first chunk (%.0f ms)",
		res.end.Reason, res.end.Frames, audioS, res.samples, wall, wall/max(audioS, 1e-9), pb.TTFAMS, pb.Stalls, pb.StallMS)
	if !c.Quiet {
		fmt.Fprint(g.Stderr, formatTTFA(tokMS, res.stream.Timeline(), res.samples, pb.TTFAMS))
		if rows := e.attribution(); rows != nil {
			fmt.Fprint(g.Stderr, stats.FormatTable(rows, stats.FrameBudgetMS))
		}
	}
	if ctx.Err() != nil {
		where := "stdout"
		if file != nil {
			where = file.Name()
		}
		fmt.Fprintf(g.Stderr, "say: interrupted after %d samples; %s is a valid file of them\n", res.samples, where)
		return ctx.Err()
	}
	return nil
}

// sayResult is what speak collected.
type sayResult struct {
	stream  *core.Stream
	end     core.End
	samples int
	wall    time.Duration
}

// speak drives e, submits req and writes each chunk's PCM to sink as it
// arrives, with a progress line per chunk. Cancelling ctx ends the stream
// (cancelled) and the audio made so far is written.
func speak(ctx context.Context, e host.Engine, req core.Request, sink pcmSink, logf func(string, ...any)) (res *sayResult, err error) {
	stop := e.Start(context.WithoutCancel(ctx))
	defer func() {
		if serr := stop(); serr != nil {
			res, err = nil, serr
		}
	}()
	streamCtx, cancelStream := context.WithCancel(ctx)
	defer cancelStream()
	start := time.Now()
	s, err := e.Submit(streamCtx, req)
	if err != nil {
		return nil, err
	}
	res = &sayResult{stream: s}
	var ttfa time.Duration
	var werr error
	for {
		ev, err := s.Next(context.WithoutCancel(ctx))
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch ev.Kind {
		case core.EventChunk:
			if ev.Chunk.Frames == 0 {
				continue
			}
			if ev.Chunk.PCM == nil && streamCtx.Err() != nil {
				continue // cancelled: the codec stage no longer decodes it
			}
			if ev.Chunk.PCM == nil && werr == nil {
				werr = fmt.Errorf("say: chunk %d of %d frames came without audio (codec off?)", ev.Chunk.Index, ev.Chunk.Frames)
				cancelStream()
			}
			if werr == nil {
				if err := sink.Write(ev.Chunk.PCM); err != nil {
					werr = fmt.Errorf("say: write: %w", err)
					cancelStream()
				}
			}
			res.samples += len(ev.Chunk.PCM)
			el := time.Since(start)
			if ttfa == 0 {
				ttfa = el
			}
			audioS := float64(res.samples) / 24000
			logf("%6.2f s of audio  frames %4d  RTF %.2f  TTFA %.0f ms", audioS, ev.Chunk.First+ev.Chunk.Frames,
				el.Seconds()/max(audioS, 1e-9), float64(ttfa.Microseconds())/1e3)
		case core.EventEnd:
			res.end = ev.End
		}
	}
	res.wall = time.Since(start)
	return res, werr
}

// formatTTFA renders the time to first audio and its attribution (the
// stream's timeline; tokenization measured before Submit) as a table.
// samples is the audio the stream delivered and ttfaMS its time to first
// audio as the reader saw it: a stream with audio but no timeline (the
// engine ran in the WASI guest, where its timeline stays) gets the time
// without the attribution.
func formatTTFA(tokMS float64, tl core.Timeline, samples int, ttfaMS float64) string {
	if samples == 0 {
		return "time to first audio: no audio\n"
	}
	if tl.FirstRead == 0 {
		return fmt.Sprintf("time to first audio: %.0f ms (no attribution: the engine's timeline stays in the WASI guest)\n", ttfaMS)
	}
	d := func(a, b time.Duration) float64 { return float64((b - a).Microseconds()) / 1e3 }
	rows := []struct {
		name string
		ms   float64
	}{
		{"tokenization", tokMS},
		{"queueing (submit → admitted)", d(tl.Submitted, tl.Admitted)},
		{"prefill", d(tl.Admitted, tl.Prefilled)},
		{"first frames (prefill → first chunk cut)", d(tl.Prefilled, tl.FirstCut)},
		{"hop (cut → codec stage)", d(tl.FirstCut, tl.FirstGot)},
		{"first decode", d(tl.FirstGot, tl.FirstDecoded)},
		{"hand-off (decoded → read)", d(tl.FirstDecoded, tl.FirstRead)},
	}
	total := tokMS + d(tl.Submitted, tl.FirstRead)
	var b []byte
	b = fmt.Appendf(b, "| time to first audio | ms | share |\n|---|---|---|\n")
	for _, r := range rows {
		b = fmt.Appendf(b, "| %s | %.1f | %.1f%% |\n", r.name, r.ms, 100*r.ms/max(total, 1e-9))
	}
	b = fmt.Appendf(b, "| **total** | %.1f | 100%% |\n", total)
	return string(b)
}

// openSink opens -o in format as say writes it: a file through
// NAME.partial (renamed when whole by file.finish), or stdout flushed after
// every chunk (a pipe gets the WAV header in one write with the first
// audio: sox's format probe on a pipe refuses a first read of the bare 44
// bytes). file is nil for stdout.
func (c *sayCmd) openSink(g *Globals, format string) (sink pcmSink, file *partialFile, err error) {
	pipe := &flushWriter{w: bufio.NewWriterSize(g.Stdout, 1<<16)}
	var out io.Writer = pipe
	if c.Out != "-" {
		if file, err = createPartial(c.Out); err != nil {
			return nil, nil, err
		}
		out = file
	}
	switch format {
	case "mp3", "flac", "opus":
		var enc audio.Encoder
		var eerr error
		if format == "opus" {
			enc, eerr = oggopus.NewEncoder(24000)
		} else {
			enc, eerr = audio.NewEncoder(format, 24000)
		}
		if eerr == nil {
			eerr = enc.Begin(out)
		}
		err = eerr
		sink = &encoderSink{w: out, enc: enc}
	case "wav":
		sink, err = audio.NewWAVWriter(out, 24000, 1)
	default:
		sink = &rawSink{w: out, f32: format == "f32"}
	}
	if err != nil {
		if file != nil {
			file.finish(err, false)
		}
		return nil, nil, err
	}
	if file == nil {
		sink = &flushSink{pcmSink: sink, f: pipe}
	}
	if sink, err = withSpeedSink(sink, c.Speed); err != nil {
		if file != nil {
			file.finish(err, false)
		}
		return nil, nil, err
	}
	return sink, file, nil
}
