package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/omni-tts/omni/audio"
)

// decodeSpeed reads "speed" as OpenAI takes it: a number in [0.25, 4.0],
// 1 when absent or null.
func decodeSpeed(raw map[string]json.RawMessage) (float64, error) {
	v, ok, err := optNumber(raw, "speed")
	if err != nil {
		return 0, err
	}
	if !ok {
		return 1, nil
	}
	if v < audio.MinSpeed || v > audio.MaxSpeed {
		return 0, &FieldError{Field: "speed", Msg: fmt.Sprintf("%g outside [%g, %g]", v, audio.MinSpeed, audio.MaxSpeed)}
	}
	return v, nil
}

// withSpeed returns st played at speed: st itself at speed 1 (the audio
// is passed through untouched), else a stream whose audio goes through a
// pitch-preserving audio.Stretcher as it arrives. A segmented stream stays
// one, its segments' times scaled to the stretched audio. On an error
// (a speed decodeSpeed would have refused) st is returned unchanged.
func withSpeed(st AudioStream, speed float64) (AudioStream, error) {
	if speed == 1 {
		return st, nil
	}
	str, err := audio.NewStretcher(SampleRate, speed)
	if err != nil {
		return st, &FieldError{Field: "speed", Msg: err.Error()}
	}
	s := &speedStream{AudioStream: st, str: str}
	if seg, ok := st.(SegmentedStream); ok {
		return &speedSegmented{speedStream: s, seg: seg}, nil
	}
	return s, nil
}

// speedStream stretches an AudioStream's audio. Its chunks carry the codec
// frames of the engine chunks whose audio they end (the frames add up to
// the engine's); a chunk's PCM is valid until the next Next.
type speedStream struct {
	AudioStream
	str    *audio.Stretcher
	out    []float32
	frames int // engine frames not yet reported in a chunk
	ended  bool
}

// Next returns the next stretched chunk: it reads engine chunks until the
// stretcher has output, and flushes the stretcher at the engine's end.
func (s *speedStream) Next(ctx context.Context) (Chunk, error) {
	for !s.ended {
		c, err := s.AudioStream.Next(ctx)
		switch {
		case err == io.EOF:
			s.ended = true
			s.out = s.str.Flush(s.out[:0])
		case err != nil:
			return Chunk{}, err
		default:
			s.out = s.str.Process(s.out[:0], c.PCM)
			s.frames += c.Frames
		}
		if len(s.out) > 0 || (s.ended && s.frames > 0) {
			f := s.frames
			s.frames = 0
			return Chunk{PCM: s.out, Frames: f}, nil
		}
	}
	return Chunk{}, io.EOF
}

// speedSegmented is a stretched SegmentedStream.
type speedSegmented struct {
	*speedStream
	seg SegmentedStream
}

// TakeSegments returns the engine's segment events with their times in the
// stretched audio.
func (s *speedSegmented) TakeSegments() []SegmentEvent {
	evs := s.seg.TakeSegments()
	sp := s.str.Speed()
	for i := range evs {
		evs[i].Start /= sp
		evs[i].End /= sp
	}
	return evs
}
