package wasm

import (
	"testing"

	"github.com/omni-tts/omni/core"
)

// plainModel is a core.Model without optional interfaces; only Prefill is
// implemented (the embedded nil interface panics on anything else).
type plainModel struct {
	core.Model
	prefills int
}

func (m *plainModel) Prefill(core.Sequence, []float32, []float32, []float32) error {
	m.prefills++
	return nil
}

// batchModel is a core.Model that is also a core.BatchPrefiller.
type batchModel struct {
	plainModel
	batches, seqs int
}

func (m *batchModel) PrefillBatch(seqs []core.Sequence, _ []int, _, _, _ []float32) error {
	m.batches++
	m.seqs += len(seqs)
	return nil
}

// TestTimedForwardsBatchPrefiller checks that the session's timing wrapper
// keeps core.BatchPrefiller exactly when the inner model has it, forwards
// the calls and counts them.
func TestTimedForwardsBatchPrefiller(t *testing.T) {
	var tp modelTimes
	if _, ok := timed(&plainModel{}, &tp).(core.BatchPrefiller); ok {
		t.Errorf("timed(model without PrefillBatch) claims core.BatchPrefiller")
	}

	inner := &batchModel{}
	var tb modelTimes
	m := timed(inner, &tb)
	bp, ok := m.(core.BatchPrefiller)
	if !ok {
		t.Fatalf("timed(%T) hides core.BatchPrefiller", inner)
	}
	seqs := make([]core.Sequence, 3)
	if err := bp.PrefillBatch(seqs, []int{1, 2, 3}, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.Prefill(nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if inner.batches != 1 || inner.seqs != 3 || inner.prefills != 1 {
		t.Errorf("inner saw %d batches of %d sequences and %d prefills, want 1, 3, 1", inner.batches, inner.seqs, inner.prefills)
	}
	if tb.batchPrefills != 1 || tb.batchPrefilled != 3 || tb.prefills != 1 {
		t.Errorf("counted %d batches of %d sequences and %d prefills, want 1, 3, 1", tb.batchPrefills, tb.batchPrefilled, tb.prefills)
	}
}
