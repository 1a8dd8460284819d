package main

import (
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/core"
)

// TestFormatTTFA: no audio says so; audio without a timeline (a WASI
// stream) gives the reader's time and says why there is no attribution
// (it used to say "no audio"); a timeline gives the table whose rows are
// its differences, summing to the total.
func TestFormatTTFA(t *testing.T) {
	if got := formatTTFA(0.5, core.Timeline{}, 0, 0); got != "time to first audio: no audio\n" {
		t.Errorf("no audio: %q", got)
	}
	got := formatTTFA(0.5, core.Timeline{}, 1920, 42.4)
	if !strings.HasPrefix(got, "time to first audio: 42 ms") || !strings.Contains(got, "WASI") {
		t.Errorf("audio without a timeline: %q", got)
	}
	ms := time.Millisecond
	tl := core.Timeline{Submitted: 1 * ms, Admitted: 3 * ms, Prefilled: 13 * ms, FirstCut: 53 * ms, FirstGot: 54 * ms, FirstDecoded: 74 * ms, FirstRead: 75 * ms}
	got = formatTTFA(0.5, tl, 1920, 75)
	for _, want := range []string{"| queueing (submit → admitted) | 2.0 |", "| prefill | 10.0 |", "| first frames (prefill → first chunk cut) | 40.0 |", "| first decode | 20.0 |", "| **total** | 74.5 |"} {
		if !strings.Contains(got, want) {
			t.Errorf("timeline table lacks %q:\n%s", want, got)
		}
	}
}
