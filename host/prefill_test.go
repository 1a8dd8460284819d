package host

import (
	"testing"
)

// TestWASIGuestBatchesPrefill checks that the guest engine prefills the
// requests admitted together with one batched call (as the native engine
// does) and still gives the native codes: 5 requests on a batch of 4 are 5
// prefilled sequences, at least 2 of them in one PrefillBatch call.
func TestWASIGuestBatchesPrefill(t *testing.T) {
	nat, wsi := openBoth(t, "synth:tiny", 4)
	reqs := seededRequests(5, 6)
	sameCodes(t, nat, wsi, reqs)
	if _, err := wsi.Load(); err != nil {
		t.Fatal(err)
	}
	g := wsi.(*wasiEngine).guestLoad()
	if g.BatchPrefills == 0 || g.BatchPrefilled < 2 {
		t.Errorf("guest ran %d batched prefills of %d sequences, want at least one of 2 or more", g.BatchPrefills, g.BatchPrefilled)
	}
	if got := g.Prefills + g.BatchPrefilled; got != uint64(len(reqs)) {
		t.Errorf("guest prefilled %d sequences (%d alone, %d batched), want %d", got, g.Prefills, g.BatchPrefilled, len(reqs))
	}
}
