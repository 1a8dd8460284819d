package core

import (
	"context"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omni-tts/omni/sched"
)

// seeded returns a request with seeded sampling on both levels.
func seeded(id string, text []int32, seed int64, maxFrames int) Request {
	r := NewRequest(text)
	r.ID = id
	r.Talker.Seed = Seed(seed)
	r.Predictor.Seed = Seed(seed + 1000)
	r.MaxFrames = maxFrames
	return r
}

// drain steps an inline engine until it is idle.
func drain(t *testing.T, e *Engine) {
	t.Helper()
	for i := 0; ; i++ {
		busy, err := e.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !busy {
			return
		}
		if i > 100000 {
			t.Fatal("engine never went idle")
		}
	}
}

// submitAll submits reqs to e in order and returns their streams.
func submitAll(t *testing.T, e *Engine, reqs []Request) []*Stream {
	t.Helper()
	var ss []*Stream
	for _, r := range reqs {
		s, err := e.Submit(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	return ss
}

// events reads s's events until io.EOF.
func events(t *testing.T, s *Stream) []Event {
	t.Helper()
	var evs []Event
	for {
		ev, err := s.Next(context.Background())
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

func newEngine(t *testing.T, m *fakeModel, edit func(*Config)) *Engine {
	t.Helper()
	cfg := Config{Model: m, IDs: tinyIDs(), Inline: true}
	if edit != nil {
		edit(&cfg)
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestBatchedEqualsUnbatched(t *testing.T) {
	reqs := []Request{
		seeded("a", []int32{1, 2, 3}, 11, 30),
		seeded("b", []int32{4, 5}, 12, 17),
		seeded("c", []int32{6}, 13, 41),
		seeded("d", []int32{7, 8, 9, 10}, 14, 25),
	}
	reqs[2].Layout = NonStreaming
	run := func(batch int) [][][Codebooks]int32 {
		m := newFake(batch)
		e := newEngine(t, m, nil)
		ss := submitAll(t, e, reqs)
		drain(t, e)
		var out [][][Codebooks]int32
		for _, s := range ss {
			if end := s.End(); end.Reason != EndLength || end.Frames != s.Cap() {
				t.Fatalf("batch %d stream %s ended %v after %d frames, want length after %d", batch, s.ID(), end.Reason, end.Frames, s.Cap())
			}
			out = append(out, s.Codes())
		}
		if n := m.liveSeqs(); n != 0 {
			t.Errorf("batch %d: %d sequences still allocated", batch, n)
		}
		return out
	}
	one, four := run(1), run(4)
	for i := range reqs {
		if !reflect.DeepEqual(one[i], four[i]) {
			t.Errorf("stream %s: batched codes differ from unbatched", reqs[i].ID)
		}
	}
}

func TestAdmissionRefusesWhatCannotFit(t *testing.T) {
	m := newFake(4)
	e := newEngine(t, m, func(c *Config) { c.KVBudgetBytes = 7000 })
	r := NewRequest([]int32{1, 2, 3})
	// 3 role + 4 control + 1 text rows + 60 frames = 68 positions, rounded
	// up to 16-token blocks: 80 × 100 B.
	r.MaxFrames = 60
	_, err := e.Submit(context.Background(), r)
	var ae *AdmissionError
	if !errors.As(err, &ae) || !errors.Is(err, ErrNoFit) {
		t.Fatalf("err = %v, want an *AdmissionError", err)
	}
	if ae.Positions != 68 || ae.NeedBytes != 8000 || ae.BudgetBytes != 7000 {
		t.Errorf("admission error %+v, want 68 positions, 8000 bytes, budget 7000", ae)
	}
	for _, want := range []string{"68 KV positions", "8000 bytes", "7000 bytes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// Two that fit one at a time: the second waits for the first's KV.
	r.MaxFrames = 30 // 38 positions → 48 = 4800 bytes
	a, err := e.Submit(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Submit(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Step(); err != nil {
		t.Fatal(err)
	}
	if l := e.Load(); l.Running != 1 || l.Waiting != 1 || l.KVBytes != 4800 {
		t.Errorf("after one step load = %+v, want 1 running, 1 waiting, 4800 KV bytes", l)
	}
	drain(t, e)
	if a.End().Reason != EndLength || b.End().Reason != EndLength {
		t.Errorf("ends %v, %v", a.End(), b.End())
	}
	if l := e.Load(); l.KVBytes != 0 {
		t.Errorf("KV still reserved after both ended: %d", l.KVBytes)
	}
}

func TestCancelMidFrameFreesKV(t *testing.T) {
	m := newFake(4)
	e := newEngine(t, m, nil)
	ctx, cancel := context.WithCancel(context.Background())
	a, err := e.Submit(ctx, seeded("a", []int32{1, 2}, 1, 100))
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Submit(context.Background(), seeded("b", []int32{1, 2}, 2, 100))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := e.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if n := m.liveSeqs(); n != 2 {
		t.Fatalf("%d live sequences, want 2", n)
	}
	m.onStep = func() { cancel(); m.onStep = nil } // cancel inside the talker decode
	if _, err := e.Step(); err != nil {
		t.Fatal(err)
	}
	if n := m.liveSeqs(); n != 1 {
		t.Errorf("after the cancelled step %d live sequences, want 1 (a's KV freed)", n)
	}
	if l := e.Load(); l.Running != 1 || l.KVBytes != b.kvBytes {
		t.Errorf("load %+v, want 1 running holding %d bytes", l, b.kvBytes)
	}
	end := a.End()
	if end.Reason != EndCancelled || !errors.Is(end.Err, context.Canceled) || end.Frames != 4 {
		t.Errorf("a ended %+v, want cancelled after 4 frames", end)
	}
	drain(t, e)
	if b.End().Reason != EndLength || len(b.Codes()) != 100 {
		t.Errorf("b ended %+v", b.End())
	}
}

func TestEOSAndLengthCap(t *testing.T) {
	m := newFake(2)
	m.eosAfter = 3
	e := newEngine(t, m, nil)
	r := NewRequest([]int32{1})
	r.Talker.Temperature = 0 // greedy: EOS's logit 100 wins once offered
	r.Predictor.Temperature = 0
	s, err := e.Submit(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, e)
	if end := s.End(); end.Reason != EndEOS || end.Frames != 3 {
		t.Errorf("end %+v, want EOS after 3 frames", end)
	}
	// min_tokens masks EOS until 5 frames exist.
	r.Talker.MinTokens = 5
	s, err = e.Submit(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, e)
	if end := s.End(); end.Reason != EndEOS || end.Frames != 5 {
		t.Errorf("end %+v, want EOS after 5 frames (min_tokens)", end)
	}
	// Events: frames in order, chunks, the end last; then io.EOF.
	var frames, chunkFrames int
	var last EventKind
	for _, ev := range events(t, s) {
		switch ev.Kind {
		case EventFrame:
			if ev.Frame.Index != frames {
				t.Errorf("frame index %d, want %d", ev.Frame.Index, frames)
			}
			frames++
		case EventChunk:
			chunkFrames += ev.Chunk.Frames
			if got := len(ev.Chunk.Codes); got != ev.Chunk.LeftContext+ev.Chunk.Frames {
				t.Errorf("chunk %d holds %d frames of codes, want %d", ev.Chunk.Index, got, ev.Chunk.LeftContext+ev.Chunk.Frames)
			}
		}
		last = ev.Kind
	}
	if frames != 5 || chunkFrames != 5 || last != EventEnd {
		t.Errorf("read %d frames, %d chunk frames, last event %v", frames, chunkFrames, last)
	}
}

// TestNextInputs checks the talker input after frame t: the frame's codec
// embedding sum plus trailing text row t (streaming layout), then tts_pad.
func TestNextInputs(t *testing.T) {
	m := &recordingFake{fakeModel: newFake(1)}
	e, err := New(Config{Model: m, IDs: tinyIDs(), Inline: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r := seeded("a", []int32{3, 4, 5}, 9, 6)
	s, err := e.Submit(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, e)
	codes := s.Codes()
	ids := tinyIDs()
	text := []int32{4, 5, ids.TTSEos, ids.TTSPad, ids.TTSPad}
	if len(m.inputs) != 5 {
		t.Fatalf("%d decode inputs, want 5 (6 frames, the last not decoded)", len(m.inputs))
	}
	for f := 0; f < 5; f++ {
		want := make([]float32, 4)
		te := make([]float32, 4)
		m.FrameEmbed(want, codes[f][:])
		m.TextEmbed(te, text[f:f+1])
		for j := range want {
			want[j] += te[j]
		}
		if !reflect.DeepEqual(m.inputs[f], want) {
			t.Errorf("input after frame %d = %v, want %v", f, m.inputs[f], want)
		}
	}
}

type recordingFake struct {
	*fakeModel
	inputs [][]float32
}

func (m *recordingFake) Decode(seqs []Sequence, embeds, hidden, logits []float32) error {
	m.inputs = append(m.inputs, append([]float32(nil), embeds...))
	return m.fakeModel.Decode(seqs, embeds, hidden, logits)
}

// blockingSink holds every chunk until released.
type blockingSink struct {
	release chan struct{}
	got     chan struct{}
}

func (b *blockingSink) Consume(c *Chunk) error {
	select {
	case b.got <- struct{}{}:
	default:
	}
	<-b.release
	return nil
}

func TestSlowConsumerBoundsMemory(t *testing.T) {
	m := newFake(1)
	sink := &blockingSink{release: make(chan struct{}), got: make(chan struct{}, 1000)}
	e, err := New(Config{Model: m, IDs: tinyIDs(), Sink: sink, HopDepth: 2,
		Chunks: sched.FixedRamp{Ramp: []int{1, 1}, ChunkFrames: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	s, err := e.Submit(context.Background(), seeded("a", []int32{1}, 1, 2000))
	if err != nil {
		t.Fatal(err)
	}
	<-sink.got // the codec stage holds chunk 0
	// Wait for the event "the hop is full" (HopDepth chunks queued behind
	// the one the sink holds): from then on the next cut blocks in put.
	// One chunk per frame: at most one in the sink, HopDepth queued and one
	// blocked in put, plus the step cutting it.
	for len(e.hop.q) < cap(e.hop.q) {
		time.Sleep(time.Millisecond)
	}
	for e.stepsNow() < 4 {
		time.Sleep(time.Millisecond)
	}
	if steps := e.stepsNow(); steps > 5 {
		t.Errorf("%d frames generated while the codec stage held its first chunk, want <= 5", steps)
	}
	close(sink.release)
	if _, err := s.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Codes()); n != 2000 {
		t.Errorf("%d frames after release, want 2000", n)
	}
	cancel()
	<-done
	e.Close()
}

func TestManyStreamsRace(t *testing.T) {
	m := newFake(8)
	e, err := New(Config{Model: m, IDs: tinyIDs(), Sink: &ChunkLog{}, KVBudgetBytes: 6 * 100 * 100})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	var wg sync.WaitGroup
	for i := 0; i < 24; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			rctx, rcancel := context.WithCancel(context.Background())
			defer rcancel()
			s, err := e.Submit(rctx, seeded("s", []int32{int32(i % 40)}, int64(i), 20+i))
			if err != nil {
				t.Error(err)
				return
			}
			n := 0
			for {
				ev, err := s.Next(context.Background())
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Error(err)
					return
				}
				if ev.Kind == EventFrame {
					n++
					if i%5 == 0 && n == 7 {
						rcancel()
					}
				}
			}
			end := s.End()
			switch {
			case i%5 != 0 && (end.Reason != EndLength || end.Frames != 20+i || n != end.Frames):
				t.Errorf("stream %d ended %+v after %d frame events, want length after %d", i, end, n, 20+i)
			case i%5 == 0 && end.Reason == EndCancelled && end.Frames < 7:
				t.Errorf("stream %d cancelled after %d frames, before the reader cancelled it", i, end.Frames)
			case i%5 == 0 && end.Reason != EndCancelled && (end.Reason != EndLength || end.Frames != 20+i):
				// The stream may finish before the reader's cancel lands.
				t.Errorf("stream %d ended %+v, want cancelled (or length %d)", i, end, 20+i)
			}
		}(i)
	}
	wg.Wait()
	cancel()
	<-done
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if n := m.liveSeqs(); n != 0 {
		t.Errorf("%d sequences leaked", n)
	}
}

// TestEmbeddedPrompt checks that an embedded prompt reaches the talker as
// given and that its trailing rows, then its pad row, are added to the
// inputs after each frame.
func TestEmbeddedPrompt(t *testing.T) {
	m := &recordingFake{fakeModel: newFake(1)}
	e, err := New(Config{Model: m, IDs: tinyIDs(), Inline: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	emb := &EmbeddedPrompt{
		Rows:     []float32{1, 2, 3, 4, 5, 6, 7, 8},
		Trailing: []float32{0.5, 0.5, 0.5, 0.5},
		Pad:      []float32{-1, -2, -3, -4},
	}
	r := Request{ID: "emb", Embedded: emb, Talker: DefaultTalkerSampling(), Predictor: DefaultPredictorSampling(), MaxFrames: 3}
	r.Talker.Seed, r.Predictor.Seed = Seed(3), Seed(4)
	s, err := e.Submit(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, e)
	codes := s.Codes()
	if len(codes) != 3 || len(m.inputs) != 2 {
		t.Fatalf("%d frames and %d decode inputs, want 3 and 2", len(codes), len(m.inputs))
	}
	for f, extra := range [][]float32{emb.Trailing, emb.Pad} {
		want := make([]float32, 4)
		m.FrameEmbed(want, codes[f][:])
		for j := range want {
			want[j] += extra[j]
		}
		if !reflect.DeepEqual(m.inputs[f], want) {
			t.Errorf("input after frame %d = %v, want %v", f, m.inputs[f], want)
		}
	}
	for _, bad := range []*EmbeddedPrompt{
		{Rows: []float32{1, 2, 3}},
		{Rows: []float32{1, 2, 3, 4}, Trailing: []float32{1}},
		{Rows: []float32{1, 2, 3, 4}, Pad: []float32{1}},
		{Rows: []float32{1, 2, 3, float32(math.Inf(1))}},
	} {
		r.Embedded = bad
		if _, err := e.Submit(context.Background(), r); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("embedded %+v: err = %v, want ErrInvalidRequest", bad, err)
		}
	}
}

// TestCancelWhileWaiting ends a request cancelled before admission without
// ever allocating its KV.
func TestCancelWhileWaiting(t *testing.T) {
	m := newFake(1)
	e := newEngine(t, m, nil)
	a, err := e.Submit(context.Background(), seeded("a", []int32{1}, 1, 5))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b, err := e.Submit(ctx, seeded("b", []int32{1}, 2, 5))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Step(); err != nil { // admits a only (batch 1)
		t.Fatal(err)
	}
	cancel()
	drain(t, e)
	if end := b.End(); end.Reason != EndCancelled || end.Frames != 0 {
		t.Errorf("b ended %+v, want cancelled with no frames", end)
	}
	if a.End().Reason != EndLength || m.freed != 1 {
		t.Errorf("a ended %v; %d sequences freed, want 1 (b never allocated)", a.End().Reason, m.freed)
	}
}

// TestCancelKeepsOtherRows cancels the first of three batched streams
// mid-run: the others' rows move up the batch and their codes must still
// equal their solo runs.
func TestCancelKeepsOtherRows(t *testing.T) {
	reqs := []Request{seeded("a", []int32{1, 2}, 21, 20), seeded("b", []int32{3}, 22, 20), seeded("c", []int32{4, 5, 6}, 23, 20)}
	solo := func(r Request) [][Codebooks]int32 {
		e := newEngine(t, newFake(1), nil)
		s, err := e.Submit(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		drain(t, e)
		return s.Codes()
	}
	e := newEngine(t, newFake(3), nil)
	ctx, cancel := context.WithCancel(context.Background())
	var ss []*Stream
	for i, r := range reqs {
		c := context.Background()
		if i == 0 {
			c = ctx
		}
		s, err := e.Submit(c, r)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	for i := 0; i < 5; i++ {
		if _, err := e.Step(); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	drain(t, e)
	if r := ss[0].End().Reason; r != EndCancelled {
		t.Errorf("a ended %v, want cancelled", r)
	}
	for i := 1; i < 3; i++ {
		if got, want := ss[i].Codes(), solo(reqs[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("stream %s: codes after the cancel differ from its solo run", reqs[i].ID)
		}
	}
}
