package engine_test

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
	"github.com/omni-tts/omni/voice"
)

// ExampleNewVoices builds the voice store omni serve gives a Base model
// (its voice encoder and the voice library) and prepares a clip with it,
// as serve does for a ref_audio request; serve.Config.Cloning.Voices takes
// the store.
func ExampleNewVoices() {
	enc, err := host.OpenVoiceEncoder("synth:tiny-base", host.VoiceOptions{Threads: 1})
	if err != nil {
		panic(err)
	}
	defer enc.Close()
	dir, _ := os.MkdirTemp("", "voices")
	defer os.RemoveAll(dir)
	lib, _ := voice.NewLibrary(dir)
	voices, err := engine.NewVoices(enc, lib)
	if err != nil {
		panic(err)
	}
	samples := make([]float32, serve.SampleRate*3/2) // 1.5 s of a 200 Hz tone at 24 kHz
	for i := range samples {
		samples[i] = float32(0.3 * math.Sin(2*math.Pi*200*float64(i)/serve.SampleRate))
	}
	p, err := voices.Prepare(context.Background(), serve.VoiceClip{Samples: samples, RefText: "A tone.", XVectorOnly: false})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Mode, p.Seconds, p.Ref.(*voice.Voice).Frames(), "reference frames")
	// Output: in_context 1.5 19 reference frames
}
