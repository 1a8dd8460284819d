package host

import (
	"context"
	"strings"
	"testing"
)

// TestWeightMemory: a warm start speaks exactly as a load without the
// cache whether the mapped weights are copied into private memory before
// Open returns, behind it, or left shared, and the log says which.
func TestWeightMemory(t *testing.T) {
	ref := speak(t, "synth:tiny", "", nil)
	dir := t.TempDir()
	speak(t, "synth:tiny", dir, nil) // writes the files
	for _, mem := range []WeightMemory{PrivateAtLoad, PrivateBehind, Shared} {
		var log syncBuf
		got := speakWith(t, "synth:tiny", WeightCache{Dir: dir, Log: &log, Memory: mem})
		sameSpeech(t, mem.String(), got, ref)
		l := log.String()
		if strings.Count(l, "cache: mapped") != 2 {
			t.Fatalf("%s: the warm start did not map both files; log:\n%s", mem, l)
		}
		copied := strings.Contains(l, "into private memory")
		switch {
		case mem == PrivateAtLoad && !copied:
			t.Errorf("%s: no private copy logged; log:\n%s", mem, l)
		case mem == Shared && copied:
			t.Errorf("%s: a private copy was made; log:\n%s", mem, l)
		case strings.Contains(l, "stopped"):
			t.Errorf("%s: the copy failed; log:\n%s", mem, l)
		}
	}
}

// TestWeightMemoryCloseDuringCopy: closing an engine at once, while its
// copy behind the load may still run, stops the copy and frees the
// weights without a fault (the race detector watches the hand-over).
func TestWeightMemoryCloseDuringCopy(t *testing.T) {
	dir := t.TempDir()
	speak(t, "synth:tiny", dir, nil)
	for range 3 {
		var log syncBuf
		e, err := Open(context.Background(), Options{Model: "synth:tiny", Threads: 1,
			WeightCache: WeightCache{Dir: dir, Log: &log, Memory: PrivateBehind}})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(log.String(), "stopped") {
			t.Errorf("a cancelled copy was logged as a failure:\n%s", log.String())
		}
	}
}
