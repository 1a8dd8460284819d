package host

import (
	"testing"

	"github.com/omni-tts/omni/simd"
)

// TestLendThreads: while the codec decodes on one thread, generation's
// pool of two runs on the other alone, and on both again between decode
// calls; a pool of one keeps its thread.
func TestLendThreads(t *testing.T) {
	nb := simd.NewBackend(2)
	defer nb.Close()
	busy := lendThreads(nb, 1)
	for i := 0; i < 2; i++ {
		busy(true)
		if got := nb.ActiveThreads(); got != 1 {
			t.Fatalf("decoding: generation on %d threads, want 1", got)
		}
		busy(false)
		if got := nb.ActiveThreads(); got != 2 {
			t.Fatalf("between decode calls: generation on %d threads, want 2", got)
		}
	}
	one := simd.NewBackend(1)
	defer one.Close()
	lone := lendThreads(one, 1)
	lone(true)
	if got := one.ActiveThreads(); got != 1 {
		t.Fatalf("a one-thread pool while decoding: %d threads, want 1", got)
	}
}
