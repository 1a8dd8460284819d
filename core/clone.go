package core

// Clone is the voice reference of a cloning request on a Base model
// (docs/MODEL.md §4; the upstream layouts are summarised in
// ../shared/research/wave3.md §3.4). It is prepared once from a reference
// clip (package voice) and then costs no encoding per request.
//
// x-vector mode (RefCodes nil): the prompt is CustomVoice's with the
// speaker row replaced by XVector. In-context mode (RefCodes set, the
// upstream default when a transcript is given): the speaker row is XVector
// too, and after codec_bos the text track carries the reference transcript
// then the target text then tts_eos while the codec track carries the sum
// of the 16 codebook embeddings of each reference frame; the reference
// frames are decoded in front of the generated ones (so the decoder state
// is right) and their audio is cut from what the stream delivers.
type Clone struct {
	// XVector is the speaker encoder's embedding of the reference (hidden
	// values): the prompt's speaker row in both modes.
	XVector []float32
	// RefCodes are the reference's codes, frame-major R×16 (codebook 0
	// first), in in-context mode; nil in x-vector mode.
	RefCodes []int32
	// RefTextIDs are the reference transcript's text ids (in-context mode,
	// required there): the ids of "<|im_start|>assistant\n{ref}<|im_end|>\n"
	// without the 3 role ids and the 2 closing ids.
	RefTextIDs []int32
	// The engine reads these slices until the stream ends: do not modify them.
}

// InContext reports whether c is an in-context reference (it carries codes).
func (c *Clone) InContext() bool { return c != nil && len(c.RefCodes) > 0 }

// RefFrames returns the number of reference frames (0 in x-vector mode).
func (c *Clone) RefFrames() int {
	if c == nil {
		return 0
	}
	return len(c.RefCodes) / 16
}
