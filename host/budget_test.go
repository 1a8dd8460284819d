package host

import (
	"context"
	"testing"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/sched"
	"github.com/omni-tts/omni/wasm/abi"
)

// TestWASIOneKVBudget: the host lets a guest instance hold what its engine
// built plus exactly the engine's KV budget, and no more; streams the
// engine admits under that budget run to their end in WASI mode as
// natively (the engine's block-rounded reservations cover every cache the
// guest allocates).
func TestWASIOneKVBudget(t *testing.T) {
	const frames = 4
	// Two streams of the seeded requests need at most 64 positions each
	// (4-row text prompts plus 4 frames, block-rounded to 16): budget one
	// such stream, so the engine admits them one after the other.
	bpt := sched.KVBytesPerToken(2, 2, 16, "float32") // synth:tiny's talker
	kv := sched.KVBytesForSeqs(1, 64, bpt, sched.DefaultBlockSize)
	e, err := Open(context.Background(), Options{Model: "synth:tiny", Mode: WASI, MaxBatch: 2, Threads: 1,
		Engine: core.Config{KVBudgetBytes: kv}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	we := e.(*wasiEngine)
	we.mu.Lock()
	fixed, budget := we.s.used, we.s.budget
	we.mu.Unlock()
	if budget != fixed+kv {
		t.Fatalf("instance budget %d B, want what the engine built (%d) + its KV budget (%d)", budget, fixed, kv)
	}
	reqs := seededRequests(2, frames)
	codes, ends := runAll(t, e, reqs)
	for i, end := range ends {
		if end.Reason != core.EndLength || len(codes[i]) != frames {
			t.Errorf("stream %d ended %v after %d frames (%v), want length after %d", i, end.Reason, len(codes[i]), end.Err, frames)
		}
	}
	we.mu.Lock()
	defer we.mu.Unlock()
	if st := we.s.charge(kv + 1); st == abi.StatusOK {
		t.Errorf("host let the instance take %d B beyond what its engine built, over the KV budget %d", kv+1, kv)
	}
}
