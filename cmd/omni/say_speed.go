package main

import (
	"fmt"

	"github.com/omni-tts/omni/audio"
)

// speedSink plays what it is given at a speed other than 1 into the sink
// it wraps, through a pitch-preserving audio.Stretcher (the one serve's
// "speed" uses), as the chunks come.
type speedSink struct {
	pcmSink
	str *audio.Stretcher
	buf []float32
}

// withSpeedSink returns sink itself at speed 1 (untouched samples), else
// sink behind a Stretcher; --speed outside [0.25, 4] is refused by value.
func withSpeedSink(sink pcmSink, speed float64) (pcmSink, error) {
	if speed == 1 {
		return sink, nil
	}
	str, err := audio.NewStretcher(24000, speed)
	if err != nil {
		return nil, fmt.Errorf("say: --speed: %w", err)
	}
	return &speedSink{pcmSink: sink, str: str}, nil
}

// Write stretches pcm and writes the output it makes ready.
func (s *speedSink) Write(pcm []float32) error {
	s.buf = s.str.Process(s.buf[:0], pcm)
	if len(s.buf) == 0 {
		return nil
	}
	return s.pcmSink.Write(s.buf)
}

// Close writes the stretcher's tail and closes the sink.
func (s *speedSink) Close() error {
	s.buf = s.str.Flush(s.buf[:0])
	var err error
	if len(s.buf) > 0 {
		err = s.pcmSink.Write(s.buf)
	}
	if cerr := s.pcmSink.Close(); err == nil {
		err = cerr
	}
	return err
}
