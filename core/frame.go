package core

import (
	"fmt"
	"time"
)

// Codebooks is the number of codes in one frame (num_code_groups).
const Codebooks = 16

// FrameMS is the audio one frame carries: 80 ms (12.5 frames per second).
const FrameMS = 80.0

// Frame is one generated codec frame of a stream.
type Frame struct {
	Index int              // 0-based frame index within the stream
	Codes [Codebooks]int32 // codebook 0 first
	At    time.Duration    // engine clock when the frame was produced (since the engine started)
	Step  uint64           // engine step that produced it
}

// EndReason says why a stream ended.
type EndReason int

const (
	// EndNone: the stream has not ended.
	EndNone EndReason = iota
	// EndEOS: codebook 0 sampled codec_eos.
	EndEOS
	// EndLength: the frame cap was reached without EOS.
	EndLength
	// EndCancelled: the request's context was cancelled.
	EndCancelled
	// EndError: the engine failed; End.Err says why.
	EndError
)

// String returns "eos", "length", "cancelled", "error" or "none".
func (r EndReason) String() string {
	switch r {
	case EndNone:
		return "none"
	case EndEOS:
		return "eos"
	case EndLength:
		return "length"
	case EndCancelled:
		return "cancelled"
	case EndError:
		return "error"
	}
	return fmt.Sprintf("EndReason(%d)", int(r))
}

// End is how a stream ended.
type End struct {
	Reason EndReason
	Err    error // the cause for EndCancelled (the context's error) and EndError
	Frames int   // frames generated
	Cap    int   // the stream's frame cap
}

// Chunk is a group of consecutive frames handed to the codec stage, with the
// left context the decoder needs (docs/SCHEDULING.md §5).
type Chunk struct {
	Stream      *Stream // the stream the chunk belongs to
	Index       int     // 0-based chunk index within the stream
	First       int     // index of the first new frame
	Frames      int     // new frames (0 only for a final marker)
	LeftContext int     // frames of left context before First included in Codes
	// Codes holds LeftContext+Frames frames, oldest first. It aliases the
	// stream's code history: read it, never write it.
	Codes []([Codebooks]int32)
	Final bool // the stream's last chunk

	ReadyAt time.Duration // engine clock when the chunk was complete (enqueue)
	PutAt   time.Duration // when the hop queue accepted it
	GotAt   time.Duration // when the codec stage received it
	// DecodedAt is when the chunk was delivered to its stream, its audio
	// decoded (GotAt plus the decode when the engine has a codec).
	DecodedAt time.Duration
	// PCM is the audio of the new frames (Frames × 1920 samples, float32
	// at 24 kHz mono) when the engine has a codec, else nil. The reader
	// owns it.
	PCM []float32
}

// AudioMS is the audio the chunk's new frames carry.
func (c *Chunk) AudioMS() float64 { return float64(c.Frames) * FrameMS }
