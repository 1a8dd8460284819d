package core

import (
	"context"
	"slices"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// TestClonePrefixCut: an in-context clone stream delivers exactly what
// upstream keeps of its one-call decode of ref ‖ generated (the codec's
// own decode of the concatenated codes, independent of the streaming
// path) after cutting the first R·SamplesPerFrame samples; an x-vector
// clone of the same generated frames, decoded from a fresh state, differs
// (the test can tell the prefix).
func TestClonePrefixCut(t *testing.T) {
	b := simd.NewBackend(1)
	t.Cleanup(func() { b.Close() })
	cm, err := codec.NewSynthetic(codec.TinyConfig(), 3, b, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cm.Close() })
	m := newFake(4)
	m.eosAfter = 40
	ids := tinyIDs()
	ids.ModelKind = "base"
	e, err := New(Config{Model: m, IDs: ids, Codec: cm})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		e.Close()
	})
	spf := cm.SamplesPerFrame()
	const R = 31 // more than one priming call (primeFrames)
	ref := make([]int32, R*Codebooks)
	for i := range ref {
		ref[i] = int32(i*5+i/Codebooks) % int32(ids.CodebookSize)
	}
	run := func(c *Clone) ([][Codebooks]int32, []float32) {
		r := seeded("clone", []int32{1, 2, 3}, 7, 0)
		r.Clone = c
		s, err := e.Submit(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		var pcm []float32
		for _, ev := range events(t, s) {
			if ev.Kind == EventChunk {
				pcm = append(pcm, ev.Chunk.PCM...)
			}
		}
		if end := s.End(); end.Reason != EndEOS {
			t.Fatalf("stream ended %v (%v), want EOS", end.Reason, end.Err)
		}
		return s.Codes(), pcm
	}
	x := []float32{0.25, -1, 2, 0.5}
	gen, pcm := run(&Clone{XVector: x, RefCodes: ref, RefTextIDs: []int32{9, 10}})
	if len(gen) == 0 || len(pcm) != len(gen)*spf {
		t.Fatalf("%d frames, %d samples delivered, want %d", len(gen), len(pcm), len(gen)*spf)
	}
	all := make([][Codebooks]int32, 0, R+len(gen))
	for f := 0; f < R; f++ {
		var fr [Codebooks]int32
		copy(fr[:], ref[f*Codebooks:])
		all = append(all, fr)
	}
	all = append(all, gen...)
	one, err := cm.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	wav := make([]float32, len(all)*spf)
	if err := one.Decode(all, wav); err != nil {
		t.Fatal(err)
	}
	cut := int(float64(R) / float64(len(all)) * float64(len(wav))) // upstream's cut
	if cut != R*spf {
		t.Fatalf("upstream's cut %d samples, want R·spf = %d", cut, R*spf)
	}
	want := wav[cut:]
	for i := range want {
		if pcm[i] != want[i] {
			t.Fatalf("sample %d (frame %d) = %g, the one-call decode of ref ‖ generated cut gives %g", i, i/spf, pcm[i], want[i])
		}
	}
	// Fresh decoder: the generated frames alone sound different.
	fresh, err := cm.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	alone := make([]float32, len(gen)*spf)
	if err := fresh.Decode(gen, alone); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(alone, pcm) {
		t.Error("the generated frames decoded from a fresh state give the same samples: the test cannot tell the prefix")
	}
	waitDecoders(t, e)
}
