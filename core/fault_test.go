package core

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/omni-tts/omni/sampler"
)

// poisoned is a greedy request whose repetition penalty makes an earlier
// token's logit overflow: fp32(1/1e-38) = 1e38 times the fake's logits
// (up to 3.75) passes MaxFloat32 (3.4e38) once a strong id repeats.
func poisoned(id string) Request {
	r := seeded(id, []int32{3, 4}, 99, 200)
	r.Talker.Temperature = 0
	r.Talker.RepetitionPenalty = 1e-38
	return r
}

// A request whose logits turn non-finite ends alone with an error matching
// sampler.ErrNonFinite; the requests batched with it produce exactly the
// codes they produce without it, and the engine steps on.
func TestNonFiniteRowEndsItsStreamAlone(t *testing.T) {
	good := []Request{
		seeded("a", []int32{1, 2, 3}, 11, 30),
		seeded("b", []int32{4, 5}, 12, 17),
		seeded("c", []int32{6}, 13, 41),
	}
	alone := func() [][][Codebooks]int32 {
		e := newEngine(t, newFake(4), nil)
		ss := submitAll(t, e, good)
		drain(t, e)
		var out [][][Codebooks]int32
		for _, s := range ss {
			out = append(out, s.Codes())
		}
		return out
	}()

	e := newEngine(t, newFake(4), nil)
	mixed := []Request{good[0], poisoned("p1"), good[1], poisoned("p2"), good[2]}
	ss := submitAll(t, e, mixed)
	drain(t, e) // fails the test if Step returns an error
	k := 0
	for i, s := range ss {
		end := s.End()
		if mixed[i].ID[0] == 'p' {
			if end.Reason != EndError || !errors.Is(end.Err, sampler.ErrNonFinite) {
				t.Errorf("poisoned %s ended %v (%v), want error matching ErrNonFinite", s.ID(), end.Reason, end.Err)
			}
			continue
		}
		if end.Reason != EndLength {
			t.Errorf("good %s ended %v (%v), want length", s.ID(), end.Reason, end.Err)
		}
		if !reflect.DeepEqual(s.Codes(), alone[k]) {
			t.Errorf("good %s: codes differ from its run without the poisoned requests", s.ID())
		}
		k++
	}
	// The engine serves what comes next.
	after := submitAll(t, e, good[:1])
	drain(t, e)
	if !reflect.DeepEqual(after[0].Codes(), alone[0]) {
		t.Errorf("request after the poisoned ones: codes differ")
	}
}

// Run goes on after a step error (a failed model call ends the streams of
// that step) and serves the next request.
func TestRunSurvivesStepError(t *testing.T) {
	m := newFake(2)
	fail := true
	e, err := New(Config{Model: &failOnce{fakeModel: m, fail: &fail}, IDs: tinyIDs(), Sink: &ChunkLog{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	first, err := e.Submit(context.Background(), seeded("a", []int32{1}, 1, 10))
	if err != nil {
		t.Fatal(err)
	}
	if end, _ := first.Wait(context.Background()); end.Reason != EndError {
		t.Fatalf("first stream ended %v, want error", end.Reason)
	}
	second, err := e.Submit(context.Background(), seeded("b", []int32{1}, 1, 10))
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer wcancel()
	end, err := second.Wait(wctx)
	if err != nil {
		t.Fatalf("second stream never ended: Run stopped after the step error (%v)", err)
	}
	if end.Reason != EndLength {
		t.Errorf("second stream ended %v (%v), want length", end.Reason, end.Err)
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned %v while its context was live", err)
	default:
	}
}

// failOnce fails its first Decode.
type failOnce struct {
	*fakeModel
	fail *bool
}

func (f *failOnce) Decode(seqs []Sequence, embeds, hidden, logits []float32) error {
	if *f.fail {
		*f.fail = false
		return errors.New("fake: decode failed")
	}
	return f.fakeModel.Decode(seqs, embeds, hidden, logits)
}

// sampleRows samples every finite row as one Sample call over those rows
// alone would, and marks each non-finite row.
func TestSampleRows(t *testing.T) {
	const V, B = 16, 5
	newS := func() *sampler.Sampler {
		s, err := sampler.New(sampler.Config{MaxBatch: B, Vocab: V, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	logits := make([]float32, B*V)
	for i := range logits {
		logits[i] = float32((i*37)%11) / 3
	}
	logits[1*V+5] = float32(math.NaN())
	logits[3*V+2] = float32(math.Inf(1))
	reqs := func(rows ...int) []*sampler.Request {
		var out []*sampler.Request
		for _, r := range rows {
			p := sampler.DefaultParams()
			p.Seed = new(int64)
			*p.Seed = int64(100 + r)
			q, err := sampler.NewRequest(p, V, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, q)
		}
		return out
	}
	got := make([]int32, B)
	rowErr := make([]error, B)
	if err := sampleRows(newS(), append([]float32(nil), logits...), reqs(0, 1, 2, 3, 4), got, rowErr); err != nil {
		t.Fatal(err)
	}
	for r := range B {
		bad := r == 1 || r == 3
		if bad != (rowErr[r] != nil) || (bad && !errors.Is(rowErr[r], sampler.ErrNonFinite)) {
			t.Errorf("row %d error %v, want one: %v", r, rowErr[r], bad)
		}
	}
	var fine []float32
	for _, r := range []int{0, 2, 4} {
		fine = append(fine, logits[r*V:(r+1)*V]...)
	}
	want := make([]int32, 3)
	if err := newS().Sample(fine, reqs(0, 2, 4), want); err != nil {
		t.Fatal(err)
	}
	for i, r := range []int{0, 2, 4} {
		if got[r] != want[i] {
			t.Errorf("row %d token %d, want %d", r, got[r], want[i])
		}
	}
}

// Admitted is closed at admission, not at Submit: with room for one
// stream, the second waits until the first has ended; a cancelled waiting
// stream's channel closes too.
func TestAdmitted(t *testing.T) {
	e := newEngine(t, newFake(1), nil)
	ss := submitAll(t, e, []Request{seeded("a", []int32{1}, 1, 5), seeded("b", []int32{2}, 2, 5)})
	ctx, cancel := context.WithCancel(context.Background())
	c, err := e.Submit(ctx, seeded("c", []int32{3}, 3, 5))
	if err != nil {
		t.Fatal(err)
	}
	closed := func(s *Stream) bool {
		select {
		case <-s.Admitted():
			return true
		default:
			return false
		}
	}
	if closed(ss[0]) || closed(ss[1]) || closed(c) {
		t.Fatal("Admitted closed before any step")
	}
	if _, err := e.Step(); err != nil {
		t.Fatal(err)
	}
	if !closed(ss[0]) || closed(ss[1]) {
		t.Fatalf("after one step (batch 1): admitted a=%v b=%v, want a only", closed(ss[0]), closed(ss[1]))
	}
	cancel()
	drain(t, e)
	if !closed(ss[1]) || !closed(c) {
		t.Errorf("after the drain: admitted b=%v c=%v, want both closed", closed(ss[1]), closed(c))
	}
	if r := c.End().Reason; r != EndCancelled {
		t.Errorf("cancelled waiting stream ended %v", r)
	}
}
