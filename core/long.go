package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Submitter queues a request and returns its stream: *Engine is one, and
// so is host.Engine in either mode.
type Submitter interface {
	Submit(ctx context.Context, req Request) (*Stream, error)
}

// LongOptions configure a long-form synthesis (NewLong).
type LongOptions struct {
	// MaxFrames bounds the whole reply's audio in frames (80 ms each);
	// 0 means no bound beyond each segment's own cap. Reaching it ends the
	// reply early, reported in LongResult.Truncated, never silently.
	MaxFrames int
	// Ahead is how many segments may be generating besides the one being
	// read (default 1): segment k+1 is submitted once segment k's first
	// audio is read, so it is generated while k plays and the first audio
	// comes as soon as for segment 0 alone. -1 submits one at a time.
	Ahead int
}

// LongEventKind tells what a LongEvent carries.
type LongEventKind int

const (
	// LongSegmentStart: the audio that follows is segment Segment's.
	LongSegmentStart LongEventKind = iota + 1
	// LongAudio carries PCM of the current segment.
	LongAudio
	// LongSegmentEnd: segment Segment ended (End says how; EndLength means
	// it reached its frame cap before its end of speech).
	LongSegmentEnd
)

// LongEvent is one item of a long-form reply.
type LongEvent struct {
	Kind    LongEventKind
	Segment int       // 0-based segment index
	PCM     []float32 // LongAudio: 24 kHz mono samples; the reader owns them
	Frames  int       // LongAudio: the chunk's frames; LongSegmentEnd: the segment's
	End     End       // LongSegmentEnd
	// StartSample and EndSample place the segment in the reply's audio
	// (LongSegmentStart: StartSample; LongSegmentEnd: both).
	StartSample, EndSample int64
}

// SegmentResult is how one segment of a long-form reply went.
type SegmentResult struct {
	Frames                 int
	Cap                    int
	Reason                 EndReason // EndNone: never ran (the reply stopped before it)
	StartSample, EndSample int64
}

// LongResult summarizes a long-form reply; complete once Next returned an
// error (io.EOF at a normal end).
type LongResult struct {
	Segments []SegmentResult
	Frames   int   // frames of every segment
	Samples  int64 // samples read
	// Capped lists the segments that reached their frame cap (EndLength).
	Capped []int
	// Truncated is set when LongOptions.MaxFrames ended the reply: the
	// segment cut there ends with EndLength, the later ones never ran
	// (EndNone).
	Truncated bool
}

// Long is one long-form synthesis: segments (one Request each, built from
// the same voice, language and instruction) generated as separate streams
// and read as one reply. Their audio is one stream: each segment continues
// the codec decoder state of the one before (Request.Follows and KeepCodec,
// set by NewLong), so nothing restarts at a seam. Next is called by one
// goroutine; Close by any.
type Long struct {
	ctx    context.Context
	cancel context.CancelFunc
	sub    Submitter
	reqs   []Request
	o      LongOptions

	streams []*Stream // submitted, by segment
	cur     int       // segment being read
	started bool      // cur's LongSegmentStart was returned
	res     LongResult
	err     error // the reply's end (io.EOF or the error), sticky

	mu     sync.Mutex // guards streams (appended by Next, read by Close) and closed
	closed bool
}

// NewLong starts a long-form reply of reqs (at least one) on sub: segment 0
// is submitted at once, the others as reading goes (LongOptions.Ahead).
// Seeds given in the requests are per segment derived from segment k's
// own (SegmentSeed), so a seeded reply is reproducible and its segments do
// not repeat one another's randomness. NewLong sets Follows and KeepCodec.
// ctx cancels the whole reply.
func NewLong(ctx context.Context, sub Submitter, reqs []Request, o LongOptions) (*Long, error) {
	if len(reqs) == 0 {
		return nil, invalid("long-form: no segments")
	}
	if o.MaxFrames < 0 {
		return nil, invalid("long-form: max_frames %d negative", o.MaxFrames)
	}
	if o.Ahead < -1 {
		return nil, invalid("long-form: ahead %d below -1", o.Ahead)
	}
	if o.Ahead == 0 {
		o.Ahead = 1
	}
	if ctx == nil {
		ctx = context.Background()
	}
	rs := make([]Request, len(reqs))
	copy(rs, reqs)
	for k := range rs {
		r := &rs[k]
		if r.ID == "" {
			r.ID = fmt.Sprintf("segment-%d", k)
		}
		r.Talker.Seed = SegmentSeed(r.Talker.Seed, k)
		r.Predictor.Seed = SegmentSeed(r.Predictor.Seed, k)
		if o.MaxFrames > 0 && r.MaxFrames > o.MaxFrames {
			r.MaxFrames = o.MaxFrames // no segment may exceed the whole
		}
	}
	l := &Long{sub: sub, reqs: rs, o: o}
	l.ctx, l.cancel = context.WithCancel(ctx)
	l.res.Segments = make([]SegmentResult, len(rs))
	if err := l.submit(); err != nil {
		l.cancel()
		return nil, err
	}
	return l, nil
}

// SegmentSeed derives segment k's seed from a request's: segment 0 keeps
// it (a one-segment reply equals the plain request), the others take a
// SplitMix64 mix of seed and k, non-negative; nil (and -1, "no seed") stay.
func SegmentSeed(seed *int64, k int) *int64 {
	if seed == nil || *seed == -1 || k == 0 {
		return seed
	}
	z := uint64(*seed) + uint64(k)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	s := int64(z >> 1)
	return &s
}

// submit queues the next segment, following the last one submitted.
func (l *Long) submit() error {
	k := len(l.streams)
	r := l.reqs[k]
	r.KeepCodec = k+1 < len(l.reqs)
	if k > 0 {
		r.Follows = l.streams[k-1]
	}
	s, err := l.sub.Submit(l.ctx, r)
	if err != nil {
		if k > 0 {
			l.streams[k-1].ReleaseCodec()
		}
		return fmt.Errorf("core: long-form segment %d: %w", k, err)
	}
	l.mu.Lock()
	l.streams = append(l.streams, s)
	closed := l.closed
	l.mu.Unlock()
	if closed {
		s.ReleaseCodec()
	}
	return nil
}

// Segments returns the number of segments.
func (l *Long) Segments() int { return len(l.reqs) }

// Next returns the reply's next event; io.EOF after the last segment's
// end (or after the reply was truncated by MaxFrames, see Result). An
// engine error ends the reply with it.
func (l *Long) Next(ctx context.Context) (LongEvent, error) {
	if l.err != nil {
		return LongEvent{}, l.err
	}
	for {
		s := l.streams[l.cur]
		seg := &l.res.Segments[l.cur]
		if !l.started {
			l.started = true
			seg.StartSample = l.res.Samples
			return LongEvent{Kind: LongSegmentStart, Segment: l.cur, StartSample: seg.StartSample}, nil
		}
		ev, err := s.Next(ctx)
		if err == io.EOF {
			ev, err = Event{Kind: EventEnd, End: s.End()}, nil
		}
		if err != nil {
			return LongEvent{}, err // the reader's ctx: the reply goes on
		}
		switch ev.Kind {
		case EventChunk:
			if len(ev.Chunk.PCM) == 0 && ev.Chunk.Frames == 0 {
				continue
			}
			if l.o.Ahead >= 0 && len(l.streams) < len(l.reqs) && len(l.streams) <= l.cur+l.o.Ahead {
				if err := l.submit(); err != nil {
					return LongEvent{}, l.fail(err)
				}
			}
			pcm, frames := ev.Chunk.PCM, ev.Chunk.Frames
			if l.o.MaxFrames > 0 && l.res.Frames+frames > l.o.MaxFrames {
				// the reply's bound: keep what fits, end here, say so
				keep := l.o.MaxFrames - l.res.Frames
				pcm = pcm[:keep*len(pcm)/frames]
				frames = keep
				l.res.Truncated = true
				l.res.Frames += frames
				seg.Frames += frames
				l.res.Samples += int64(len(pcm))
				seg.Reason, seg.Cap, seg.EndSample = EndLength, s.Cap(), l.res.Samples
				l.err = io.EOF
				l.stop()
				if frames == 0 {
					return LongEvent{}, io.EOF
				}
				return LongEvent{Kind: LongAudio, Segment: l.cur, PCM: pcm, Frames: frames}, nil
			}
			l.res.Frames += frames
			seg.Frames += frames
			l.res.Samples += int64(len(pcm))
			return LongEvent{Kind: LongAudio, Segment: l.cur, PCM: pcm, Frames: frames}, nil
		case EventEnd:
			end := ev.End
			seg.Reason, seg.Cap, seg.EndSample = end.Reason, end.Cap, l.res.Samples
			out := LongEvent{Kind: LongSegmentEnd, Segment: l.cur, Frames: seg.Frames, End: end, StartSample: seg.StartSample, EndSample: seg.EndSample}
			switch end.Reason {
			case EndEOS:
			case EndLength:
				l.res.Capped = append(l.res.Capped, l.cur)
			case EndCancelled:
				l.stop()
				err := end.Err
				if err == nil {
					err = context.Canceled
				}
				l.err = err
				return out, nil
			default:
				l.stop()
				err := end.Err
				if err == nil {
					err = errors.New("core: long-form segment ended with an error")
				}
				l.err = fmt.Errorf("core: long-form segment %d: %w", l.cur, err)
				return out, nil
			}
			if l.cur+1 == len(l.reqs) {
				l.err = io.EOF
				l.stop()
				return out, nil
			}
			if len(l.streams) == l.cur+1 {
				if err := l.submit(); err != nil {
					l.err = l.fail(err)
					return out, nil
				}
			}
			l.cur++
			l.started = false
			return out, nil
		}
	}
}

// fail stops the reply with err.
func (l *Long) fail(err error) error {
	l.stop()
	l.err = err
	return err
}

// stop cancels every segment still running and frees kept decoder states.
func (l *Long) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cancel()
	for _, s := range l.streams {
		s.ReleaseCodec()
	}
}

// Result returns the reply's summary so far (complete once Next returned
// an error).
func (l *Long) Result() LongResult {
	r := l.res
	r.Segments = append([]SegmentResult(nil), l.res.Segments...)
	r.Capped = append([]int(nil), l.res.Capped...)
	return r
}

// Close cancels the reply: every segment's KV and decoder state are freed
// at the engine's next step. It may be called from any goroutine, more
// than once.
func (l *Long) Close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.stop()
}
