package codec_test

import (
	"fmt"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// A stream decodes frames as they arrive; any split gives the samples of one
// call.
func ExampleModel_NewStream() {
	b := simd.NewBackend(1)
	defer b.Close()
	m, err := codec.NewSynthetic(codec.TinyConfig(), 1, b, "fp32") // or codec.Load(dir, b, "fp32")
	if err != nil {
		panic(err)
	}
	defer m.Close()
	s, err := m.NewStream()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	frames := make([][codec.Codebooks]int32, 3) // codebook 0 first, each in [0, codebook_size)
	pcm := make([]float32, len(frames)*m.SamplesPerFrame())
	if err := s.Decode(frames[:1], pcm[:m.SamplesPerFrame()]); err != nil {
		panic(err)
	}
	if err := s.Decode(frames[1:], pcm[m.SamplesPerFrame():]); err != nil {
		panic(err)
	}
	fmt.Println(len(pcm), "samples at", m.Config().SampleRate, "Hz;", s.Frames(), "frames decoded")
	// Output: 144 samples at 24000 Hz; 3 frames decoded
}
