package bench

import (
	"slices"
	"testing"

	"github.com/omni-tts/omni/core"
)

// TestSyntheticClone checks a synthetic reference's shape against the
// model's sizes, its determinism by seed, that other seeds give other
// codes (so the primed-state cache cannot match them), and the refusals.
func TestSyntheticClone(t *testing.T) {
	ids := core.SpecialIDs{Hidden: 48, CodebookSize: 2048}
	a, err := SyntheticClone(ids, 77, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !a.InContext() || len(a.XVector) != 48 || len(a.RefCodes) != 77*core.Codebooks || a.RefFrames() != 77 || len(a.RefTextIDs) == 0 {
		t.Fatalf("clone: in context %v, x-vector %d, codes %d (%d frames), transcript %d ids", a.InContext(), len(a.XVector), len(a.RefCodes), a.RefFrames(), len(a.RefTextIDs))
	}
	for i, c := range a.RefCodes {
		if c < 0 || c >= 2048 {
			t.Fatalf("code %d = %d outside the codebook", i, c)
		}
	}
	b, _ := SyntheticClone(ids, 77, 5)
	if !slices.Equal(a.RefCodes, b.RefCodes) || !slices.Equal(a.XVector, b.XVector) {
		t.Error("the same seed gave another reference")
	}
	c, _ := SyntheticClone(ids, 77, 6)
	if slices.Equal(a.RefCodes, c.RefCodes) {
		t.Error("another seed gave the same codes")
	}
	if _, err := SyntheticClone(core.SpecialIDs{CodebookSize: 2048}, 5, 1); err == nil {
		t.Error("no hidden size: no error")
	}
	if _, err := SyntheticClone(ids, 0, 1); err == nil {
		t.Error("0 reference frames: no error")
	}
}
