package codec_test

import (
	"fmt"
	"math"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// An encoder turns a voice reference (24 kHz mono) into frames of 16 codes,
// ceil(samples / SamplesPerFrame) of them.
func ExampleEncoder_AppendEncode() {
	b := simd.NewBackend(1)
	defer b.Close()
	e, err := codec.NewSyntheticEncoder(codec.TinyEncoderConfig(), 1, b, "fp32") // or codec.LoadEncoder(dir, b, "fp32")
	if err != nil {
		panic(err)
	}
	defer e.Close()
	clip := make([]float32, 100)
	for i := range clip {
		clip[i] = float32(0.3 * math.Sin(float64(i)/5))
	}
	codes, err := e.AppendEncode(nil, clip)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(clip), "samples,", e.SamplesPerFrame(), "per frame:", len(codes), "frames of", len(codes[0]), "codes")
	// Output: 100 samples, 12 per frame: 9 frames of 16 codes
}
