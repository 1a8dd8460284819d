package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/text"
	"github.com/omni-tts/omni/voice"
)

// longFlags are "omni say"'s long-form flags: a text of any length from a
// file or stdin, spoken as segments (sentences) in one audio stream.
type longFlags struct {
	TextFile     string  `name:"text-file" help:"Read the text from this file (\"-\" = stdin): any length, spoken as segments (sentences) in one audio stream, one decoder state across every seam."`
	Timestamps   bool    `help:"With --text-file, write each segment's start and end in the audio (seconds) and its text as JSON beside the output (book.wav → book.timestamps.json)."`
	MaxAudio     float64 `name:"max-audio" default:"0" help:"With --text-file, bound the whole audio to this many seconds, 0..86400 (0 = no bound); reaching it ends the output, reported (${default})."`
	SegmentUnits int     `name:"segment-units" default:"400" help:"With --text-file, the longest segment in units (a Latin letter 1, a CJK character 3), 3..100000 (${default})."`
}

// segmentsJSON is the --timestamps sidecar.
type segmentsJSON struct {
	SampleRate int           `json:"sample_rate"`
	Segments   []segmentJSON `json:"segments"`
	Frames     int           `json:"frames"`
	Seconds    float64       `json:"seconds"`
	Capped     []int         `json:"capped"`    // segments that reached their frame cap
	Truncated  bool          `json:"truncated"` // --max-audio ended the output
}

// segmentJSON is one segment in the sidecar; Start and End are seconds in
// the audio, Span the byte range of the input it came from.
type segmentJSON struct {
	Index  int     `json:"index"`
	Text   string  `json:"text"`
	Span   [2]int  `json:"span"`
	Start  float64 `json:"start"`
	End    float64 `json:"end"`
	Frames int     `json:"frames"`
	Cap    int     `json:"cap"`
	Reason string  `json:"end_reason"` // eos, length (its cap), cancelled, error, none (never ran)
}

// sidecarPath returns the --timestamps file beside out.
func sidecarPath(out string) string {
	if i := strings.LastIndexByte(out, '.'); i > strings.LastIndexByte(out, '/') {
		out = out[:i]
	}
	return out + ".timestamps.json"
}

// runLong is "omni say --text-file": the text segmented (text.Segments),
// one request per segment with the same voice, language, instruction and
// sampling flags (seeds derived per segment), read as one reply
// (core.NewLong) into one output.
func (c *sayCmd) runLong(g *Globals, ctx context.Context, logf func(string, ...any), src, format string, cloned *voice.Voice) error {
	if c.MaxAudio < 0 || c.MaxAudio > 86400 {
		return fmt.Errorf("say: --max-audio %g outside [0, 86400] seconds", c.MaxAudio)
	}
	if err := inRange("--segment-units", c.SegmentUnits, text.CJKWeight, 100000); err != nil {
		return err
	}
	if c.Timestamps && c.Out == "-" {
		return errors.New("say: --timestamps writes beside the output file: give -o FILE, not -")
	}
	segs, err := text.Segments(src, text.SegmentOptions{MaxUnits: c.SegmentUnits})
	if err != nil {
		return err
	}
	if len(segs) == 0 {
		return fmt.Errorf("say: --text-file %s: no words to speak", c.TextFile)
	}
	mode := host.Native
	if c.Wasm {
		mode = host.WASI
		logf("WASI guest: each segment starts a fresh codec decoder (seams are continuous natively only)")
	}
	c.audio = true
	e, err := c.openEngine(ctx, g, 1, mode, logf)
	if err != nil {
		return err
	}
	defer e.Close()
	reqs := make([]core.Request, len(segs))
	for k, sg := range segs {
		r, err := e.Request(c.sayInput(sg.Text, cloned))
		if err != nil {
			return fmt.Errorf("say: segment %d (bytes %d..%d of the text): %w", k, sg.Start, sg.End, err)
		}
		r.ID, r.MaxFrames = fmt.Sprintf("say-%d", k), c.MaxFrames
		if err := c.sampling(&r); err != nil {
			return err
		}
		reqs[k] = r
	}
	logf("%d characters in %d segments", utf8.RuneCountInString(src), len(segs))

	out, file, err := c.openSink(g, format)
	if err != nil {
		return err
	}
	maxFrames := int(c.MaxAudio * 1000 / core.FrameMS)
	res, err := speakLong(ctx, e, reqs, core.LongOptions{MaxFrames: maxFrames}, out, logf)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if file != nil {
		err = file.finish(err, ctx.Err() != nil)
	}
	if res != nil && c.Timestamps {
		if werr := writeTimestamps(sidecarPath(c.Out), segs, res, c.Speed); err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	audioS := float64(res.Samples) / 24000
	logf("%d segments, %d frames, %.2f s of audio", len(segs), res.Frames, audioS)
	if len(res.Capped) > 0 {
		logf("warning: %d segment(s) reached their frame cap before their end of speech: %s", len(res.Capped), listHead(res.Capped, 10))
	}
	if res.Truncated {
		logf("warning: --max-audio %g s ended the output before the text's end", c.MaxAudio)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("say: interrupted after %d samples (the file is valid): %w", res.Samples, ctx.Err())
	}
	return nil
}

// speakLong drives e and writes the reply's audio to sink as it is read,
// with a progress line per segment (segments done / total, audio made).
// Cancelling ctx ends the reply; the audio so far is written.
func speakLong(ctx context.Context, e host.Engine, reqs []core.Request, o core.LongOptions, sink pcmSink, logf func(string, ...any)) (*core.LongResult, error) {
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	ran := make(chan error, 1)
	go func() {
		err := guard(func() error { return e.Run(runCtx) })
		if err != nil && !errors.Is(err, context.Canceled) {
			stop()
		}
		ran <- err
	}()
	finish := func(err error) error {
		stop()
		if rerr := <-ran; rerr != nil && !errors.Is(rerr, context.Canceled) && err == nil {
			return rerr
		}
		return err
	}
	start := time.Now()
	l, err := core.NewLong(ctx, e, reqs, o)
	if err != nil {
		return nil, finish(err)
	}
	defer l.Close()
	var ttfa time.Duration
	var werr error
	samples := int64(0)
	for {
		ev, err := l.Next(runCtx)
		if err != nil {
			res := l.Result()
			if err == io.EOF || errors.Is(err, context.Canceled) {
				err = nil
			}
			return &res, finish(errors.Join(err, werr))
		}
		switch ev.Kind {
		case core.LongAudio:
			if ttfa == 0 {
				ttfa = time.Since(start)
			}
			if werr == nil && ev.PCM != nil {
				if err := sink.Write(ev.PCM); err != nil {
					werr = fmt.Errorf("say: write: %w", err)
					l.Close()
				}
			}
			samples += int64(len(ev.PCM))
		case core.LongSegmentEnd:
			audioS := float64(samples) / 24000
			el := time.Since(start)
			capped := ""
			if ev.End.Reason == core.EndLength {
				capped = fmt.Sprintf("  CAPPED at %d frames", ev.End.Cap)
			}
			logf("segment %d/%d  %7.2f s of audio  RTF %.2f  TTFA %.0f ms%s", ev.Segment+1, len(reqs), audioS,
				el.Seconds()/max(audioS, 1e-9), float64(ttfa.Microseconds())/1e3, capped)
		}
	}
}

// writeTimestamps writes the --timestamps sidecar; times are in the
// written audio, played at speed (--speed).
func writeTimestamps(path string, segs []text.Segment, res *core.LongResult, speed float64) error {
	rate := 24000 * speed
	doc := segmentsJSON{SampleRate: 24000, Frames: res.Frames, Seconds: float64(res.Samples) / rate, Capped: res.Capped, Truncated: res.Truncated}
	if doc.Capped == nil {
		doc.Capped = []int{}
	}
	for k, sg := range segs {
		r := res.Segments[k]
		doc.Segments = append(doc.Segments, segmentJSON{
			Index: k, Text: sg.Text, Span: [2]int{sg.Start, sg.End},
			Start: float64(r.StartSample) / rate, End: float64(r.EndSample) / rate,
			Frames: r.Frames, Cap: r.Cap, Reason: r.Reason.String(),
		})
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("say: --timestamps: %w", err)
	}
	return nil
}

// listHead formats the first n of v, then how many more.
func listHead(v []int, n int) string {
	if len(v) <= n {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%v and %d more", v[:n], len(v)-n)
}
