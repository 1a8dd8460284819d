package host

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm"
	"github.com/omni-tts/omni/wasm/abi"
)

// TestNativeAndWASIBitIdentical06B loads the synthetic 0.6B model once and
// runs it natively (the control core linked in, on the host's handles) and
// as the WASI guest (on the same handles): the probe's logits must agree
// bit for bit and seeded engine runs must give the same codes.
func TestNativeAndWASIBitIdentical06B(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the synthetic 0.6B model")
	}
	src, err := predictor.OpenModel("synth:0.6b")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	nb := simd.NewBackend(simd.DefaultThreads())
	s, rec, w, err := loadShared(src, nb, predictor.Int8, nil)
	if err != nil {
		nb.Close()
		t.Fatal(err)
	}
	const batch = 2
	opts := Options{Source: src, Mode: WASI, MaxBatch: batch, MaxLen: 256,
		Engine: core.Config{Throttle: core.Throttle{Disabled: true}, Seed: 3}}
	wsi, err := newWASIEngine(context.Background(), opts, src, s, rec, nb)
	if err != nil {
		s.table.release(ownerHost, func(h int32) { nb.Free(h) })
		nb.Close()
		t.Fatal(err)
	}
	defer wsi.Close() // frees the weights and nb

	// The native side: the same graph on the recorder (native kernels,
	// the host's handles).
	m, err := core.NewModel(w, core.ModelOptions{MaxBatch: batch, MaxLen: 256})
	if err != nil {
		t.Fatal(err)
	}
	hidden := src.Config().Talker.Hidden
	emb := probeEmbeds(3, hidden)
	const steps = 2
	want, wantCodes, err := wasm.Probe(m, emb, steps)
	if err != nil {
		t.Fatal(err)
	}
	ps := &abi.ProbeSpec{Steps: steps}
	for _, f := range emb {
		ps.Embeds = append(ps.Embeds, math.Float32bits(f))
	}
	rep, err := wsi.probe(ps)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Logits) != len(want) {
		t.Fatalf("wasi probe gave %d logits, native %d", len(rep.Logits), len(want))
	}
	for i := range want {
		if rep.Logits[i] != want[i] {
			t.Fatalf("logit %d: wasi %#08x, native %#08x", i, rep.Logits[i], want[i])
		}
	}
	if !slices.Equal(rep.Codes, wantCodes) {
		t.Errorf("probe codes: wasi %v, native %v", rep.Codes, wantCodes)
	}

	m.Close()
	cfg := opts.Engine
	cfg.MaxBatch = batch
	ne, err := core.NewEngine(w, src.Config(), cfg, core.ModelOptions{MaxLen: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer ne.Close()
	reqs := seededRequests(2, 3)
	sameCodes(t, nativeCore{ne}, wsi, reqs)
}

// nativeCore adapts a bare core.Engine to Engine for runAll.
type nativeCore struct{ e *core.Engine }

func (n nativeCore) Submit(ctx context.Context, r core.Request) (*core.Stream, error) {
	return n.e.Submit(ctx, r)
}
func (n nativeCore) Step() (bool, error)           { return n.e.Step() }
func (n nativeCore) Run(ctx context.Context) error { return n.e.Run(ctx) }
func (n nativeCore) Load() (core.Load, error)      { return n.e.Load(), nil }
func (n nativeCore) Start(ctx context.Context) func() error {
	return start(ctx, n.e.Run, func(error) { n.e.Close() })
}
func (n nativeCore) Mode() Mode           { return Native }
func (n nativeCore) IDs() core.SpecialIDs { return core.SpecialIDs{} }
func (n nativeCore) Request(core.TextInput) (core.Request, error) {
	return core.Request{}, errors.New("nativeCore builds no text requests")
}
func (n nativeCore) Close() error { return n.e.Close() }
