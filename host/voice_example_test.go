package host_test

import (
	"fmt"
	"math"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
)

// A voice is prepared once from a reference clip on a Base model, kept
// (voice.Library, voice.Encode) and put on any number of requests.
func ExampleOpenVoiceEncoder() {
	enc, err := host.OpenVoiceEncoder("synth:tiny-base", host.VoiceOptions{Threads: 1})
	if err != nil {
		panic(err)
	}
	defer enc.Close()
	clip := make([]float32, 16000) // 1 s at 16 kHz; DecodeClip reads WAV, FLAC, MP3
	for i := range clip {
		clip[i] = float32(0.3 * math.Sin(2*math.Pi*150*float64(i)/16000))
	}
	v, err := enc.Prepare("me", clip, 16000, "Hello there.", false)
	if err != nil {
		panic(err)
	}
	in := v.TextInput(core.TextInput{Text: "Good morning."}) // Clone and RefText set
	fmt.Println(v.Name, len(v.XVector), v.Frames(), in.RefText, in.Clone.InContext())
	// Output: me 64 13 Hello there. true
}
