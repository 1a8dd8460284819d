package codec_test

import (
	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// simd.Backend is the native implementation of the decoder's Backend.
var _ codec.Backend = (*simd.Backend)(nil)
