package core

import (
	"context"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/simd/simdtest"
)

// TestCodecStageAllocs checks that the codec stage, once warm, allocates
// per delivered batch only the PCM each audio-carrying chunk hands to its
// reader (which the reader owns, so it cannot be reused): its work lists
// are kept between batches. The batch holds two chunks of one stream (two
// rounds) and one of each of five others with a different frame count:
// more chunks than a small stack-allocated list holds.
func TestCodecStageAllocs(t *testing.T) {
	simdtest.EachLevel(t, func(t *testing.T) {
		b := simd.NewBackend(1)
		defer b.Close()
		cfg := codec.TinyConfig()
		m, err := codec.NewSynthetic(cfg, 3, b, "fp32")
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		st := newCodecStage(m, -1, nil)
		newStream := func(id string) *Stream {
			return &Stream{req: Request{ID: id}, ctx: context.Background(), stage: st,
				notify: make(chan struct{}, 1), done: make(chan struct{})}
		}
		var ss []*Stream
		for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
			s := newStream(id)
			defer s.closeDecoder()
			ss = append(ss, s)
		}
		codes := make([][Codebooks]int32, 3)
		for i := range codes {
			for k := range codes[i] {
				codes[i][k] = int32((7*i + 3*k) % cfg.CodebookSize)
			}
		}
		chunks := []*Chunk{{Stream: ss[0], Frames: 2, Codes: codes[:2]}}
		for _, s := range ss[1:] {
			chunks = append(chunks, &Chunk{Stream: s, Frames: 3, Codes: codes})
		}
		chunks = append(chunks, &Chunk{Stream: ss[0], Frames: 1, Codes: codes[2:]})
		batch := make([]*Chunk, 0, len(chunks))
		ready := make([]*Chunk, 0, len(chunks))
		now := func() float64 { return 0 }
		run := func() {
			batch = append(batch[:0], chunks...)
			var err error
			ready, err = st.process(batch, ready[:0], false, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(ready) != len(chunks) {
				t.Fatalf("process delivered %d chunks, want %d", len(ready), len(chunks))
			}
			for _, c := range ready {
				if len(c.PCM) != c.Frames*m.SamplesPerFrame() {
					t.Fatalf("chunk of stream %s: %d samples for %d frames", c.Stream.ID(), len(c.PCM), c.Frames)
				}
			}
		}
		run() // grows the scratch and the stage's lists
		if n := testing.AllocsPerRun(5, run); n != float64(len(chunks)) {
			t.Errorf("codec stage allocates %v times per batch of %d chunks, want %d (their PCM)", n, len(chunks), len(chunks))
		}
	})
}
