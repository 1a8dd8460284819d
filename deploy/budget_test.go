package deploy

import (
	"errors"
	"strings"
	"testing"

	"github.com/omni-tts/omni/sched"
)

func TestSizeMaxNumSeqsNeverAdmitsWhatDoesNotFit(t *testing.T) {
	bpt := int64(114688)
	per := sched.KVBytesForSeqs(1, 2048, bpt, 16)
	if n, err := SizeMaxNumSeqs(2, 10*per, 2048, bpt); n != 2 || err != nil {
		t.Errorf("SizeMaxNumSeqs(class 2, room for 10) = %d, %v; want 2", n, err)
	}
	if n, err := SizeMaxNumSeqs(4, 3*per+5, 2048, bpt); n != 3 || err != nil {
		t.Errorf("SizeMaxNumSeqs(class 4, room for 3) = %d, %v; want 3", n, err)
	}
	_, err := SizeMaxNumSeqs(2, per-1, 2048, bpt)
	var fe *FitError
	if !errors.As(err, &fe) || !errors.Is(err, ErrNoFit) || fe.Fit != 0 || fe.PerSeqBytes != per {
		t.Fatalf("SizeMaxNumSeqs(budget < one sequence) error = %v, want a *FitError with Fit 0", err)
	}
	for _, s := range []string{"not even one sequence", "234881024", "234881023"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if err := CheckAdmission(3*per, 4, 2048, bpt); !errors.Is(err, ErrNoFit) || !strings.Contains(err.Error(), "holds 3") {
		t.Errorf("CheckAdmission(4 in room for 3) = %v, want a FitError saying it holds 3", err)
	}
	if err := CheckAdmission(3*per, 3, 2048, bpt); err != nil {
		t.Errorf("CheckAdmission(3 in room for 3) = %v", err)
	}
	if err := CheckAdmission(3*per, 0, 2048, bpt); err == nil {
		t.Error("CheckAdmission(0 seqs) succeeded")
	}
}

func TestMemoryBudget(t *testing.T) {
	// x86 8 GiB host with 6 GiB available, 2 GiB of weights, 2 GiB headroom:
	// activations max(0.3 GiB, 512 MiB) = 512 MiB, budget 1.5 GiB, KV 70 %.
	b := NewMemoryBudget(6*GiB, 2*GiB, 2*GiB, 0.7)
	if b.ActivationsBytes != 512*MiB {
		t.Errorf("activations = %d, want 512 MiB", b.ActivationsBytes)
	}
	if want := 6*GiB - 2*GiB - 512*MiB - 2*GiB; b.BudgetBytes != want {
		t.Errorf("budget = %d, want %d", b.BudgetBytes, want)
	}
	if want := int64(float64(b.BudgetBytes) * 0.7); b.KVBytes != want || b.KVBytes+b.CodecBytes != b.BudgetBytes {
		t.Errorf("KV %d + codec %d, want %d + rest of %d", b.KVBytes, b.CodecBytes, want, b.BudgetBytes)
	}
	if got := ActivationsBytes(10 * GiB); got != int64(0.15*float64(10*GiB)) {
		t.Errorf("activations(10 GiB) = %d, want 15 %%", got)
	}
	if tiny := NewMemoryBudget(3*GiB, 2*GiB, 2*GiB, 0.7); tiny.BudgetBytes != 0 || tiny.KVBytes != 0 {
		t.Errorf("tiny host budget = %+v, want 0", tiny)
	}
}
