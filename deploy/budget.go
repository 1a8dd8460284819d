package deploy

import (
	"errors"
	"fmt"
	"math"

	"github.com/omni-tts/omni/sched"
)

// ActivationsFloorBytes is the least memory reserved for activations.
const ActivationsFloorBytes = 512 * MiB

// MemoryBudget is how a memory pool is shared out. Every field is bytes.
type MemoryBudget struct {
	PoolBytes        int64   `json:"pool_bytes"`        // what the machine offers (available RAM)
	WeightsBytes     int64   `json:"weights_bytes"`     // the checkpoint
	ActivationsBytes int64   `json:"activations_bytes"` // max(15 % of weights, 512 MiB)
	HeadroomBytes    int64   `json:"headroom_bytes"`    // the class's reserve
	BudgetBytes      int64   `json:"budget_bytes"`      // max(0, pool − weights − activations − headroom)
	KVBytes          int64   `json:"kv_bytes"`          // the model stage's share of the budget
	CodecBytes       int64   `json:"codec_bytes"`       // the rest, for the codec stage
	KVFraction       float64 `json:"kv_fraction"`       // the share given to KVBytes
}

// ActivationsBytes is max(15 % of the weights, 512 MiB).
func ActivationsBytes(weightsBytes int64) int64 {
	return max(int64(0.15*float64(max(weightsBytes, 0))), ActivationsFloorBytes)
}

// NewMemoryBudget shares pool out: budget = max(0, pool − weights −
// activations − headroom), computed without overflow (negative weights or
// headroom count as 0); the model stage's KV gets int(budget × kvFraction)
// (0.7 in every class; a fraction outside [0, 1] is clamped to it), the
// codec stage the rest.
func NewMemoryBudget(poolBytes, weightsBytes, headroomBytes int64, kvFraction float64) MemoryBudget {
	b := MemoryBudget{
		PoolBytes:        poolBytes,
		WeightsBytes:     weightsBytes,
		ActivationsBytes: ActivationsBytes(weightsBytes),
		HeadroomBytes:    headroomBytes,
		KVFraction:       kvFraction,
	}
	need := addSat(addSat(max(weightsBytes, 0), b.ActivationsBytes), max(headroomBytes, 0))
	if poolBytes > need {
		b.BudgetBytes = poolBytes - need
	}
	// float64(budget) may round up past the budget (and past MaxInt64)
	if kv := float64(b.BudgetBytes) * min(max(kvFraction, 0), 1); kv < float64(b.BudgetBytes) {
		b.KVBytes = int64(kv)
	} else {
		b.KVBytes = b.BudgetBytes
	}
	b.CodecBytes = b.BudgetBytes - b.KVBytes
	return b
}

// addSat is a + b for b ≥ 0, saturating at MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// ErrNoFit is wrapped by every *FitError.
var ErrNoFit = errors.New("deploy: sequences do not fit the KV budget")

// FitError says that Want sequences of MaxModelLen tokens do not fit KVBytes
// without preemption, with the numbers.
type FitError struct {
	Want          int   // sequences asked for
	Fit           int   // sequences that fit
	KVBytes       int64 // the KV budget
	PerSeqBytes   int64 // one sequence's need, block-rounded
	MaxModelLen   int
	BytesPerToken int64
}

// Error implements error.
func (e *FitError) Error() string {
	if e.Fit == 0 {
		return fmt.Sprintf("deploy: not even one sequence fits: one sequence of %d tokens × %d B/token needs %d bytes (%.1f MiB), the KV budget is %d bytes (%.1f MiB)",
			e.MaxModelLen, e.BytesPerToken, e.PerSeqBytes, mib(e.PerSeqBytes), e.KVBytes, mib(e.KVBytes))
	}
	return fmt.Sprintf("deploy: %d sequences do not fit without preemption: %d × %d bytes (%d tokens × %d B/token) = %d bytes (%.1f MiB) > KV budget %d bytes (%.1f MiB), which holds %d",
		e.Want, e.Want, e.PerSeqBytes, e.MaxModelLen, e.BytesPerToken, int64(e.Want)*e.PerSeqBytes, mib(int64(e.Want)*e.PerSeqBytes), e.KVBytes, mib(e.KVBytes), e.Fit)
}

// Is makes errors.Is(err, ErrNoFit) true.
func (e *FitError) Is(target error) bool { return target == ErrNoFit }

// mib is b in MiB.
func mib(b int64) float64 { return float64(b) / float64(MiB) }

// SizeMaxNumSeqs is min(classMax, the sequences kvBytes admits without
// preemption). When not even one sequence fits it returns a *FitError —
// it never admits a sequence that does not fit.
func SizeMaxNumSeqs(classMax int, kvBytes int64, maxModelLen int, bytesPerToken int64) (int, error) {
	fit := sched.MaxSeqsWithoutPreemption(kvBytes, maxModelLen, bytesPerToken, sched.DefaultBlockSize)
	if fit < 1 {
		return 0, &FitError{Want: 1, Fit: 0, KVBytes: kvBytes, PerSeqBytes: sched.KVBytesForSeqs(1, maxModelLen, bytesPerToken, sched.DefaultBlockSize), MaxModelLen: maxModelLen, BytesPerToken: bytesPerToken}
	}
	return min(max(classMax, 1), fit), nil
}

// CheckAdmission returns a *FitError unless n sequences of maxModelLen
// tokens fit kvBytes without preemption.
func CheckAdmission(kvBytes int64, n, maxModelLen int, bytesPerToken int64) error {
	if n < 1 {
		return fmt.Errorf("deploy: max_num_seqs %d must be ≥ 1", n)
	}
	fit := sched.MaxSeqsWithoutPreemption(kvBytes, maxModelLen, bytesPerToken, sched.DefaultBlockSize)
	if fit >= n {
		return nil
	}
	return &FitError{Want: n, Fit: fit, KVBytes: kvBytes, PerSeqBytes: sched.KVBytesForSeqs(1, maxModelLen, bytesPerToken, sched.DefaultBlockSize), MaxModelLen: maxModelLen, BytesPerToken: bytesPerToken}
}
