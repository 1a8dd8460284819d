package predictor_test

import (
	"testing"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// TestInt4 checks the 4-bit precisions on the outlier model's predictor
// (the 0.6B width, tables, heads and outlier channels, 2 of its 5 layers;
// about a minute, skipped in -short).
func TestInt4(t *testing.T) {
	if testing.Short() {
		t.Skip("4-bit precisions on the 0.6B predictor: drop -short to run them")
	}
	src, err := predictor.OpenModel("synth:0.6b+outliers")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	few := withPredictorLayers(src, 2)
	t.Run("bytes", func(t *testing.T) { testInt4Bytes(t, few) })
	t.Run("fidelity", func(t *testing.T) { testInt4Fidelity(t, few) })
}

// testInt4Bytes checks the 4-bit precisions' bytes per frame against the
// arithmetic of their layouts: a 4-bit block of 32 weights is 16 bytes of
// codes and a 2-byte scale, an int8 block of DefaultBlock weights as many
// bytes and a 2-byte scale, so the all-4-bit body reads 18/34 ≈ 0.53 of
// int8's bytes at blocks of 32 (plus the int8 heads and
// the fp32 guarded rows both keep); the mixed modes lie in between, in
// order of how many matrices they keep in int8.
func testInt4Bytes(t *testing.T, few predictor.Source) {
	bytes := map[predictor.Precision]int64{}
	for _, p := range []predictor.Precision{predictor.Int8, predictor.Int4, predictor.Int4MLP, predictor.Int4GateUp, predictor.Int4Late} {
		b := newBackend(t)
		w, err := predictor.LoadPredictorWeights(few, b, p)
		if err != nil {
			t.Fatalf("LoadPredictorWeights(%s): %v", p, err)
		}
		if bytes[p], err = w.BytesPerFrame(); err != nil {
			t.Fatal(err)
		}
		w.Free()
	}
	// The body's ratio: 4-bit codes and a 2-byte scale per Q4Block weights
	// against a byte and a 2-byte scale per DefaultBlock; the int8 heads
	// and fp32 guarded rows add at most 0.05.
	body := (float64(simd.Q4Block)/2 + 2) / float64(simd.Q4Block) / ((float64(simd.DefaultBlock) + 2) / float64(simd.DefaultBlock))
	r := float64(bytes[predictor.Int4]) / float64(bytes[predictor.Int8])
	if r < body || r > body+0.05 {
		t.Errorf("int4 reads %d bytes per frame, int8 %d: ratio %.3f, want in [%.3f, %.3f]", bytes[predictor.Int4], bytes[predictor.Int8], r, body, body+0.05)
	}
	if !(bytes[predictor.Int4] < bytes[predictor.Int4MLP] && bytes[predictor.Int4MLP] < bytes[predictor.Int4GateUp] && bytes[predictor.Int4GateUp] < bytes[predictor.Int8]) {
		t.Errorf("bytes per frame out of order: int4 %d, int4-mlp %d, int4-gateup %d, int8 %d",
			bytes[predictor.Int4], bytes[predictor.Int4MLP], bytes[predictor.Int4GateUp], bytes[predictor.Int8])
	}
	// int4-late on 2 layers: layer 1 (≥ 2·3/5) in 4 bits, layer 0 in int8.
	if l := bytes[predictor.Int4Late]; !(l > bytes[predictor.Int4] && l < bytes[predictor.Int8]) {
		t.Errorf("int4-late reads %d bytes per frame: want between int4's %d and int8's %d", l, bytes[predictor.Int4], bytes[predictor.Int8])
	}
}

// testInt4Fidelity runs the 4-bit precisions against fp32 on the outlier
// model's predictor (2 layers): each must track fp32 far better than
// chance (a broken rotation, codebook or scale gives near-random top-1 and
// KL of several nats) and no better than int8, whose error is 16 times
// smaller per weight.
func testInt4Fidelity(t *testing.T, few predictor.Source) {
	const frames, B = 4, 2
	p8 := fidelity(t, few, predictor.Int8, frames, B)
	for _, prec := range []predictor.Precision{predictor.Int4, predictor.Int4GateUp} {
		p := fidelity(t, few, prec, frames, B)
		if p.Top1() < 0.5 || p.MeanKL() > 0.5 {
			t.Errorf("%s: top-1 %.3f, mean KL %.4f: want top-1 ≥ 0.5 and KL ≤ 0.5", prec, p.Top1(), p.MeanKL())
		}
		if p.MeanKL() <= p8.MeanKL() {
			t.Errorf("%s: mean KL %.5f not above int8's %.5f", prec, p.MeanKL(), p8.MeanKL())
		}
	}
}
