package serve_test

import (
	"math"
	"testing"

	"github.com/omni-tts/omni/serve/servetest"
)

// nodeSDKError is an error the Node SDK threw, as speech.mjs reports it.
type nodeSDKError struct {
	Thrown bool
	Status int
	Param  string
}

// checkNodeSpeed checks speech.mjs's speed answers: the seeded request at
// speed 2 is round(n/2) samples of the n at speed 1 (whole frames, checked
// by check), and on the fake (the 440 Hz tone) keeps its pitch within 1 %;
// speed 5 is a thrown 400 naming speed.
func checkNodeSpeed(t *testing.T, one, two []int16, bad nodeSDKError, check func(t *testing.T, what string, got []int16, wantN int)) {
	t.Helper()
	check(t, "node speed 1 pcm", one, len(one)/1920*1920)
	if want := int(math.Round(float64(len(one)) / 2)); len(two) != want {
		t.Errorf("node speed 2: %d samples, want round(%d/2) = %d", len(two), len(one), want)
	}
	if len(one) == servetest.FramesFor("Speed changes the pace and keeps the pitch.")*1920 { // the fake's tone
		m := len(two) / 10
		if hz := risingZeroCrossingsHz(two[m : len(two)-m]); math.Abs(hz-servetest.ToneHz)/servetest.ToneHz > 0.01 {
			t.Errorf("node speed 2: pitch %.2f Hz, want %g within 1 %%", hz, servetest.ToneHz)
		}
	}
	if !bad.Thrown || bad.Status != 400 || bad.Param != "speed" {
		t.Errorf("speed 5: SDK error %+v, want a thrown 400 with param speed", bad)
	}
}
