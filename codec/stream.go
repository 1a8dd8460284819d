package codec

// Stream is one utterance being decoded: every layer's state (causal conv
// tails, transposed-conv carries, the transformer's window of keys and
// values, the frame position), so that frames decoded as they arrive, in
// any split, give the very samples of one call on all of them.
type Stream struct {
	m      *Model
	kv     int32 // window KV handle
	pos    int32 // frames decoded so far
	closed bool

	preTail   []float32   // pre_conv: 2 rows of codebook_dim
	dwTail    [][]float32 // per upsample stage: 6 rows of latent_dim (ConvNeXt depthwise input)
	upCarry   [][]float32 // per upsample stage: (r−r = 0) rows
	conv0Tail []float32   // decoder.0: 6 rows of latent_dim
	blkCarry  [][]float32 // per block: s rows of out (transposed conv k=2s)
	resTail   [][3][]float32
	outTail   []float32 // final conv: 6 rows of the last width
}

// NewStream returns a stream at its start (all state zero).
func (m *Model) NewStream() (*Stream, error) {
	if m.closed {
		return nil, errorf(ErrArgs, "model closed")
	}
	c := &m.cfg
	kv, err := m.b.NewWindowKV(c.Layers, c.Heads, c.HeadDim, c.SlidingWindow)
	if err != nil {
		return nil, err
	}
	s := &Stream{m: m, kv: kv}
	L := c.LatentDim
	s.preTail = make([]float32, 2*c.CodebookDim)
	for _, r := range c.UpsamplingRatios {
		s.dwTail = append(s.dwTail, make([]float32, 6*L))
		s.upCarry = append(s.upCarry, make([]float32, 0*r)) // k = s: no overlap
	}
	s.conv0Tail = make([]float32, 6*L)
	for i, st := range c.UpsampleRates {
		_, out := c.blockDims(i)
		s.blkCarry = append(s.blkCarry, make([]float32, st*out))
		var t [3][]float32
		for u := range t {
			t[u] = make([]float32, 6*dilation(u)*out)
		}
		s.resTail = append(s.resTail, t)
	}
	s.outTail = make([]float32, 6*c.outDim())
	return s, nil
}

// Frames returns the number of frames the stream has decoded or advanced
// over (Advance) since its start or last Reset.
func (s *Stream) Frames() int { return int(s.pos) }

// Reset returns the stream to its start, as a new stream.
func (s *Stream) Reset() error {
	if s.closed {
		return errorf(ErrArgs, "stream closed")
	}
	if err := s.m.b.ResetKV(s.kv); err != nil {
		return err
	}
	s.pos = 0
	for _, v := range s.all() {
		clear(v)
	}
	return nil
}

// Close releases the stream's attention state; further use is an error.
func (s *Stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.m.b.Free(s.kv)
}

// StateBytes returns the bytes of the stream's state: the tails and carries
// held here plus the window KV state on the backend.
func (s *Stream) StateBytes() int64 {
	var n int64
	for _, v := range s.all() {
		n += 4 * int64(len(v))
	}
	if !s.closed {
		if b, err := s.m.b.Bytes(s.kv); err == nil {
			n += b
		}
	}
	return n
}

func (s *Stream) all() [][]float32 {
	v := [][]float32{s.preTail, s.conv0Tail, s.outTail}
	v = append(v, s.dwTail...)
	v = append(v, s.upCarry...)
	v = append(v, s.blkCarry...)
	for _, t := range s.resTail {
		v = append(v, t[:]...)
	}
	return v
}

// Decode decodes frames of codes (codebook 0 first), writing
// len(codes)·SamplesPerFrame samples into pcm, which must have exactly that
// length. Frames of one call or of several give the same samples.
func (s *Stream) Decode(codes [][Codebooks]int32, pcm []float32) error {
	return s.m.DecodeBatch([]*Stream{s}, [][][Codebooks]int32{codes}, [][]float32{pcm})
}

// Advance moves the stream over frames whose samples are not wanted (an
// in-context clone's reference): they go through the layers up to the
// transformer, whose state (its window of keys and values, pre_conv's
// tail, the frame position) then is that of decoding them, while the later
// layers keep theirs and nothing is written. Those later layers (the
// upsampling and the vocoder) are finite impulse responses: their state
// after a frame depends on their last LookbackFrames() frames of input
// alone. So advancing over frames and then decoding at least
// LookbackFrames() more leaves the very state, bit for bit, of decoding
// them all, and the samples that follow are the same; the samples of those
// decoded frames are not (the later layers start from another state).
// Codes are checked as Decode checks them; a refused call changes nothing.
func (s *Stream) Advance(codes [][Codebooks]int32) error {
	return s.m.run([]*Stream{s}, [][][Codebooks]int32{codes}, nil)
}

// LookbackFrames returns how many frames of input the layers after the
// transformer depend on: the sum of their causal histories (the ConvNeXt
// depthwise convs', vocoder conv 0's, each block's transposed-conv carry
// and residual-unit convs', the output conv's), each in its own rate's
// rows, converted to frames, rounded up, plus one: tracing a history back
// through the rate changes rounds it out to whole rows of each slower
// rate, up to a frame's samples less one in all, which the one frame
// covers (at the real and tiny geometries one frame fewer still suffices,
// two do not). See Advance.
func (m *Model) LookbackFrames() int { return m.cfg.lookbackFrames() }

// lookbackFrames is LookbackFrames for the configuration.
func (c *Config) lookbackFrames() int {
	spf := c.SamplesPerFrame()
	samples := 0 // the histories, in output samples
	rate := 1    // rows per frame at the current layer
	for _, r := range c.UpsamplingRatios {
		rate *= r
		samples += 6 * spf / rate // ConvNeXt depthwise conv, k = 7
	}
	samples += 6 * spf / rate // vocoder conv 0, k = 7
	for _, st := range c.UpsampleRates {
		samples += spf / rate // transposed conv k = 2s: one input row of carry
		rate *= st
		for u := range 3 {
			samples += 6 * dilation(u) * spf / rate // residual unit conv, k = 7
		}
	}
	samples += 6 // output conv, k = 7, one row a sample
	return (samples+spf-1)/spf + 1
}

// Stage names a part of the decoder for timing (see SetStageHook).
type Stage int

// The stages, in graph order.
const (
	StageRVQ Stage = iota
	StagePreConv
	StageTransformer
	StageUpsample
	StageVocoderIn
	StageBlock1
	StageBlock2
	StageBlock3
	StageBlock4
	StageOut
	NumStages
)

// String returns the stage's name.
func (s Stage) String() string {
	switch s {
	case StageRVQ:
		return "rvq"
	case StagePreConv:
		return "pre_conv"
	case StageTransformer:
		return "transformer"
	case StageUpsample:
		return "upsample"
	case StageVocoderIn:
		return "vocoder_in"
	case StageBlock1, StageBlock2, StageBlock3, StageBlock4:
		return "block" + string(rune('1'+s-StageBlock1))
	case StageOut:
		return "out"
	}
	return "unknown"
}
