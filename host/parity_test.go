package host

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm"
	"github.com/omni-tts/omni/wasm/abi"
)

// seededRequests returns n requests with their own seeds and frame caps.
func seededRequests(n, frames int) []core.Request {
	var out []core.Request
	for i := 0; i < n; i++ {
		r := core.NewRequest([]int32{int32(3 + i), 7, int32(11 + 2*i), 5})
		r.ID = fmt.Sprintf("r%d", i)
		r.Talker.Seed = core.Seed(int64(100 + i))
		r.Predictor.Seed = core.Seed(int64(900 + i))
		r.MaxFrames = frames
		out = append(out, r)
	}
	return out
}

// sameCodes runs reqs on both engines and fails for every request whose
// native codes are empty or differ from the WASI ones.
func sameCodes(t *testing.T, nat, wsi Engine, reqs []core.Request) {
	t.Helper()
	nc, _ := runAll(t, nat, reqs)
	wc, _ := runAll(t, wsi, reqs)
	for i := range reqs {
		if len(nc[i]) == 0 || !slices.Equal(nc[i], wc[i]) {
			t.Errorf("request %d: native codes %v, wasi %v", i, nc[i], wc[i])
		}
	}
}

// runAll submits reqs to e, steps it until idle and returns every
// stream's codes and end.
func runAll(t *testing.T, e Engine, reqs []core.Request) ([][][core.Codebooks]int32, []core.End) {
	t.Helper()
	ctx := context.Background()
	var ss []*core.Stream
	for _, r := range reqs {
		s, err := e.Submit(ctx, r)
		if err != nil {
			t.Fatalf("%v Submit(%s): %v", e.Mode(), r.ID, err)
		}
		ss = append(ss, s)
	}
	for i := 0; ; i++ {
		busy, err := e.Step()
		if err != nil {
			t.Fatalf("%v Step %d: %v", e.Mode(), i, err)
		}
		if !busy {
			break
		}
		if i > 100000 {
			t.Fatalf("%v: engine still busy after %d steps", e.Mode(), i)
		}
	}
	var codes [][][core.Codebooks]int32
	var ends []core.End
	for _, s := range ss {
		end, err := s.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, s.Codes())
		ends = append(ends, end)
	}
	return codes, ends
}

// openBoth opens the same model natively and under WASI.
func openBoth(t *testing.T, spec string, batch int) (Engine, Engine) {
	t.Helper()
	var es []Engine
	for _, m := range []Mode{Native, WASI} {
		e, err := Open(context.Background(), Options{Model: spec, Mode: m, MaxBatch: batch, Threads: 1,
			Engine: core.Config{Throttle: core.Throttle{Disabled: true}, Seed: 7}})
		if err != nil {
			t.Fatalf("Open(%s, %v): %v", spec, m, err)
		}
		t.Cleanup(func() { e.Close() })
		es = append(es, e)
	}
	return es[0], es[1]
}

func TestNativeAndWASICodesIdentical(t *testing.T) {
	nat, wsi := openBoth(t, "synth:tiny", 4)
	reqs := seededRequests(5, 12)
	nc, ne := runAll(t, nat, reqs)
	wc, we := runAll(t, wsi, reqs)
	for i := range reqs {
		if ne[i].Reason != we[i].Reason || ne[i].Frames != we[i].Frames {
			t.Errorf("request %d: native end %v/%d frames, wasi %v/%d", i, ne[i].Reason, ne[i].Frames, we[i].Reason, we[i].Frames)
		}
		if len(nc[i]) == 0 {
			t.Errorf("request %d: native produced no frames (end %+v)", i, ne[i])
		}
		if !slices.Equal(nc[i], wc[i]) {
			t.Errorf("request %d: codes differ\nnative %v\nwasi   %v", i, nc[i], wc[i])
		}
	}
	if HostCallsOf(wsi) == 0 {
		t.Errorf("wasi engine reports no host calls")
	}
}

// nativeProbe runs wasm.Probe on a natively loaded model.
func nativeProbe(t *testing.T, spec string, embeds []float32, steps int) ([]uint32, [][16]int32) {
	t.Helper()
	src, err := predictor.OpenModel(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	nb := simd.NewBackend(1)
	defer nb.Close()
	w, err := predictor.LoadWeights(src, nb, predictor.Int8)
	if err != nil {
		t.Fatal(err)
	}
	m, err := core.NewModel(w, core.ModelOptions{MaxBatch: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	bits, codes, err := wasm.Probe(m, embeds, steps)
	if err != nil {
		t.Fatal(err)
	}
	return bits, codes
}

// probeEmbeds returns rows×hidden deterministic prompt rows.
func probeEmbeds(rows, hidden int) []float32 {
	e := make([]float32, rows*hidden)
	for i := range e {
		e[i] = float32(math.Sin(float64(i)*0.37)) * 0.5
	}
	return e
}

func TestNativeAndWASILogitsBitIdentical(t *testing.T) {
	const spec = "synth:tiny"
	src, err := predictor.OpenModel(spec)
	if err != nil {
		t.Fatal(err)
	}
	hidden := src.Config().Talker.Hidden
	src.Close()
	emb := probeEmbeds(5, hidden)
	const steps = 4
	want, wantCodes := nativeProbe(t, spec, emb, steps)

	e, err := Open(context.Background(), Options{Model: spec, Mode: WASI, MaxBatch: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec2 := &abi.ProbeSpec{Steps: steps}
	for _, f := range emb {
		spec2.Embeds = append(spec2.Embeds, math.Float32bits(f))
	}
	rep, err := e.(*wasiEngine).probe(spec2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Logits) != len(want) {
		t.Fatalf("wasi probe gave %d logits, native %d", len(rep.Logits), len(want))
	}
	for i := range want {
		if rep.Logits[i] != want[i] {
			t.Fatalf("logit %d: wasi %#08x (%g), native %#08x (%g)", i, rep.Logits[i], math.Float32frombits(rep.Logits[i]), want[i], math.Float32frombits(want[i]))
		}
	}
	if !slices.Equal(rep.Codes, wantCodes) {
		t.Errorf("probe codes differ: wasi %v, native %v", rep.Codes, wantCodes)
	}
}

func TestTrapReplacesInstance(t *testing.T) {
	e, err := Open(context.Background(), Options{Model: "synth:tiny", Mode: WASI, MaxBatch: 2, Threads: 1,
		Engine: core.Config{Throttle: core.Throttle{Disabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	w := e.(*wasiEngine)
	for _, kind := range []int32{abi.FaultPanic, abi.FaultDeadlock} {
		reqs := seededRequests(1, 50)
		s, err := e.Submit(context.Background(), reqs[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Step(); err != nil {
			t.Fatal(err)
		}
		owner := w.in.owner
		if _, err := w.fault(kind); !errors.Is(err, ErrTrapped) {
			t.Fatalf("fault %d: err %v, want ErrTrapped", kind, err)
		}
		end, _ := s.Wait(context.Background())
		if end.Reason != core.EndError || !errors.Is(end.Err, ErrTrapped) {
			t.Errorf("fault %d: stream end %+v, want EndError wrapping ErrTrapped", kind, end)
		}
		if n := w.s.table.count(owner); n != 0 {
			t.Errorf("fault %d: discarded instance still holds %d handles", kind, n)
		}
		// The engine keeps serving.
		codes, ends := runAll(t, e, seededRequests(2, 6))
		for i := range codes {
			if ends[i].Reason != core.EndLength || len(codes[i]) != 6 {
				t.Errorf("after fault %d: request %d ended %+v with %d frames", kind, i, ends[i], len(codes[i]))
			}
		}
	}
	if got := w.Replaced(); got != 2 {
		t.Errorf("Replaced() = %d, want 2", got)
	}
}

func TestBadHostCallIsAnErrorNotATrap(t *testing.T) {
	e, err := Open(context.Background(), Options{Model: "synth:tiny", Mode: WASI, MaxBatch: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	w := e.(*wasiEngine)
	r, err := w.fault(abi.FaultBadCall)
	if err != nil {
		t.Fatalf("bad call trapped: %v", err)
	}
	if abi.Status(-r) != abi.StatusBadPointer {
		t.Errorf("wild matmul returned status %d, want %d (bad pointer)", -r, abi.StatusBadPointer)
	}
	if w.Replaced() != 0 {
		t.Errorf("a refused host call replaced the instance")
	}
}

func TestTimeoutReplacesSpinningInstance(t *testing.T) {
	e, err := Open(context.Background(), Options{Model: "synth:tiny", Mode: WASI, MaxBatch: 1, Threads: 1,
		Interruptible: true, CallTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	w := e.(*wasiEngine)
	if _, err := w.fault(abi.FaultSpin); !errors.Is(err, ErrTrapped) {
		t.Fatalf("spinning guest: err %v, want ErrTrapped after the call timeout", err)
	}
	codes, ends := runAll(t, e, seededRequests(1, 4))
	if ends[0].Reason != core.EndLength || len(codes[0]) != 4 {
		t.Errorf("after the timeout: ended %+v with %d frames", ends[0], len(codes[0]))
	}
}
