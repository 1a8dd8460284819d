package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/text"
)

// startLong starts an input longer than one segment may be
// (text.DefaultMaxUnits, some 25 s of speech) as a long-form reply
// (core.NewLong) of its segments (text.Segments): one request per segment
// with the same voice, language, instructions and sampling, the seed
// derived per segment (core.SegmentSeed), max_new_tokens capping each
// segment, Options.MaxReplyFrames the whole. Like Start it returns once
// the engine has admitted the first segment. It returns nil, nil for a
// shorter input, which stays one generation.
func (s *Synthesizer) startLong(ctx context.Context, req serve.SpeechRequest) (serve.AudioStream, error) {
	if text.Units(req.Input) <= text.DefaultMaxUnits {
		return nil, nil
	}
	segs, err := text.Segments(req.Input, text.SegmentOptions{})
	if err != nil {
		return nil, &serve.FieldError{Field: "input", Msg: err.Error()}
	}
	if len(segs) < 2 {
		return nil, nil
	}
	reqs := make([]core.Request, len(segs))
	input := 0
	for k, g := range segs {
		r, _, err := s.engineRequest(req, core.TextInput{Text: g.Text}, fmt.Sprintf("segment %d (characters %d..%d)", k, g.Start, g.End))
		if err != nil {
			return nil, err
		}
		r.ID = fmt.Sprintf("segment-%d", k)
		input += len(r.TextIDs)
		reqs[k] = r
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sub := &firstSubmit{e: s.e}
	l, err := core.NewLong(sctx, sub, reqs, core.LongOptions{MaxFrames: s.maxReply})
	if err != nil {
		cancel()
		return nil, submitError(err)
	}
	stop := func() { l.Close(); cancel() }
	select {
	case <-sub.first.Admitted():
	case <-ctx.Done():
		stop() // the engine drops it from its queue at its next step
		return nil, ctx.Err()
	case <-s.life.Done():
		stop()
		return nil, s.Health()
	}
	return &longStream{syn: s, l: l, cancel: cancel, segs: segs, input: input}, nil
}

// firstSubmit submits to the engine and keeps the first stream, segment
// 0's, whose admission Start waits for.
type firstSubmit struct {
	e     core.Submitter
	first *core.Stream // set by NewLong's first Submit, before it returns
}

// Submit implements core.Submitter.
func (f *firstSubmit) Submit(ctx context.Context, r core.Request) (*core.Stream, error) {
	st, err := f.e.Submit(ctx, r)
	if err == nil && f.first == nil {
		f.first = st
	}
	return st, err
}

// longStream is a long input's audio: the reply's PCM, its segment events
// kept for TakeSegments (it is a serve.SegmentedStream).
type longStream struct {
	syn    *Synthesizer
	l      *core.Long
	cancel context.CancelFunc
	segs   []text.Segment
	input  int

	mu     sync.Mutex
	events []serve.SegmentEvent
	frames int
	closed bool
	res    serve.Result
	ended  bool
}

// Next implements serve.AudioStream: the next chunk carrying PCM, the
// segment events before it queued; io.EOF after the reply's end (an engine
// that stopped ends it with serve.ErrUnavailable).
func (a *longStream) Next(ctx context.Context) (serve.Chunk, error) {
	bctx, release := a.syn.bind(ctx)
	defer release()
	sec := func(n int64) float64 { return float64(n) / serve.SampleRate }
	for {
		ev, err := a.l.Next(bctx)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return serve.Chunk{}, err // the reader's ctx: the reply goes on
			}
			if h := a.syn.Health(); h != nil {
				a.l.Close()
				return serve.Chunk{}, a.finish(h)
			}
			return serve.Chunk{}, a.finish(err)
		}
		switch ev.Kind {
		case core.LongSegmentStart:
			a.push(serve.SegmentEvent{Type: serve.SegmentStart, Index: ev.Segment, Total: len(a.segs), Text: a.segs[ev.Segment].Text, Start: sec(ev.StartSample)})
		case core.LongSegmentEnd:
			a.push(serve.SegmentEvent{Type: serve.SegmentDone, Index: ev.Segment, Total: len(a.segs), Start: sec(ev.StartSample), End: sec(ev.EndSample),
				Frames: ev.Frames, EndReason: endReason(ev.End.Reason), Capped: ev.End.Reason == core.EndLength})
		case core.LongAudio:
			if len(ev.PCM) > 0 {
				a.mu.Lock()
				a.frames += ev.Frames
				a.mu.Unlock()
				return serve.Chunk{PCM: ev.PCM, Frames: ev.Frames}, nil
			}
		}
	}
}

// push queues a segment event.
func (a *longStream) push(ev serve.SegmentEvent) {
	a.mu.Lock()
	a.events = append(a.events, ev)
	a.mu.Unlock()
}

// TakeSegments implements serve.SegmentedStream.
func (a *longStream) TakeSegments() []serve.SegmentEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	ev := a.events
	a.events = nil
	return ev
}

// endReason maps an engine end to serve's.
func endReason(r core.EndReason) serve.EndReason {
	switch r {
	case core.EndEOS:
		return serve.EndEOS
	case core.EndLength:
		return serve.EndMaxTokens
	case core.EndCancelled:
		return serve.EndCancelled
	}
	return serve.EndError
}

// finish records the reply's end: eos when every segment ended by its end
// of speech, max_tokens when one reached its cap or the reply its bound
// (the truncated segment's done event says which); it returns io.EOF, or
// the error (an engine closed under the reply as serve.ErrUnavailable).
func (a *longStream) finish(err error) error {
	res := a.l.Result()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ended = true
	a.res = serve.Result{Reason: serve.EndEOS, Frames: res.Frames, InputTokens: a.input, OutputTokens: res.Frames}
	if len(res.Capped) > 0 || res.Truncated {
		a.res.Reason = serve.EndMaxTokens
	}
	if res.Truncated {
		k := len(res.Segments) - 1
		for i, g := range res.Segments {
			if g.Reason == core.EndNone {
				k = i - 1
				break
			}
		}
		k = max(k, 0)
		g := res.Segments[k]
		a.events = append(a.events, serve.SegmentEvent{Type: serve.SegmentDone, Index: k, Total: len(a.segs),
			Start: float64(g.StartSample) / serve.SampleRate, End: float64(g.EndSample) / serve.SampleRate,
			Frames: g.Frames, EndReason: serve.EndMaxTokens, Capped: true})
	}
	switch {
	case err == io.EOF:
		return io.EOF
	case errors.Is(err, context.Canceled):
		a.res.Reason = serve.EndCancelled
		return context.Canceled
	case errors.Is(err, core.ErrClosed):
		a.res.Reason = serve.EndError
		return fmt.Errorf("%w: %v", serve.ErrUnavailable, err)
	}
	a.res.Reason = serve.EndError
	return err
}

// Result implements serve.AudioStream. Before the end was read (a client
// that hung up) it reports the frames so far, ended cancelled once Close
// was called.
func (a *longStream) Result() serve.Result {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.ended {
		res := serve.Result{Frames: a.frames, InputTokens: a.input, OutputTokens: a.frames}
		if a.closed {
			res.Reason = serve.EndCancelled
		}
		return res
	}
	return a.res
}

// Close implements serve.AudioStream: every segment's KV and decoder state
// are freed at the engine's next step.
func (a *longStream) Close() error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.l.Close()
	a.cancel()
	return nil
}
