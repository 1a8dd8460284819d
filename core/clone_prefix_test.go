package core

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/stats"
)

// TestClonePrefixCut: an in-context clone stream delivers exactly what
// upstream keeps of its one-call decode of ref ‖ generated (the codec's
// own decode of the concatenated codes, independent of the streaming
// path) after cutting the first R·SamplesPerFrame samples; with
// ClonePrefixFrames K, the same with only the last K reference frames in
// front (K = 30 advances some of them: codec.Stream.Advance). The generated frames decoded from a fresh state differ (the test
// can tell the prefix). The priming starts at admission: the decoder state
// exists during the first talker decode, before any chunk is cut.
func TestClonePrefixCut(t *testing.T) {
	for _, K := range []int{0, 9, 30} { // 30: more than LookbackFrames (24), so a bounded prefix advances too
		t.Run(fmt.Sprintf("ClonePrefixFrames=%d", K), func(t *testing.T) { testClonePrefixCut(t, K) })
	}
}

func testClonePrefixCut(t *testing.T, K int) {
	b := simd.NewBackend(1)
	t.Cleanup(func() { b.Close() })
	cm := tinyCodec(t, b)
	m := newFake(4)
	m.eosAfter = 40
	ids := tinyIDs()
	ids.ModelKind = "base"
	rec, err := stats.New(stats.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	e, err := New(Config{Model: m, IDs: ids, Codec: cm, ClonePrefixFrames: K, Stats: rec})
	if err != nil {
		t.Fatal(err)
	}
	early, decodes := false, 0
	m.onStep = func() { // on the step goroutine, inside the talker decode
		if decodes++; decodes > 1 {
			return
		}
		for i := 0; i < 5000 && !early; i++ {
			early = e.hop.stage.live.Load() == 1
			time.Sleep(time.Millisecond)
		}
	}
	runEngine(t, e)
	spf := cm.SamplesPerFrame()
	// Several priming calls (primeFrames) before the last LookbackFrames
	// (advanced, clone_prefix.go), then those decoded.
	const R = 75
	ref := make([]int32, R*Codebooks)
	for i := range ref {
		ref[i] = int32(i*5+i/Codebooks) % int32(ids.CodebookSize)
	}
	// The second pass has the same reference: its stream copies the state
	// the first one primed (clone_primed.go) and decodes no reference frame,
	// and must deliver the same reference-defined samples.
	for pass := 0; pass < 2; pass++ {
		r := seeded("clone", []int32{1, 2, 3}, 7, 0)
		r.Clone = &Clone{XVector: []float32{0.25, -1, 2, 0.5}, RefCodes: ref, RefTextIDs: []int32{9, 10}}
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
		if pass == 0 && !early {
			t.Error("no decoder state during the first talker decode: the reference was not primed at admission")
		}
		gen := s.Codes()
		if len(gen) == 0 || len(pcm) != len(gen)*spf {
			t.Fatalf("%d frames, %d samples delivered, want %d", len(gen), len(pcm), len(gen)*spf)
		}
		first := 0
		if K > 0 {
			first = R - K
		}
		var all [][Codebooks]int32
		for f := first; f < R; f++ {
			var fr [Codebooks]int32
			copy(fr[:], ref[f*Codebooks:])
			all = append(all, fr)
		}
		P := len(all)
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
		cut := int(float64(P) / float64(len(all)) * float64(len(wav))) // upstream's cut
		if cut != P*spf {
			t.Fatalf("upstream's cut %d samples, want %d·spf = %d", cut, P, P*spf)
		}
		want := wav[cut:]
		for i := range want {
			if pcm[i] != want[i] {
				t.Fatalf("sample %d (frame %d) = %g, the one-call decode of %d reference frames ‖ generated, cut, gives %g", i, i/spf, pcm[i], P, want[i])
			}
		}
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
		hits := rec.Counter("codec.ref_prefix_hits").Summary().Count
		if hits != int64(pass) {
			t.Fatalf("pass %d: %d primed states copied, want %d", pass, hits, pass)
		}
	}
}

// BenchmarkClonePrime measures the TTFA cost of an in-context clone: the
// codec stage decoding R reference frames (10 s = 125 frames) into a fresh
// decoder state on the real codec geometry (synthetic weights, fp32, 2
// threads) before the first generated frame.
func BenchmarkClonePrime(b *testing.B) {
	be := simd.NewBackend(2)
	defer be.Close()
	cm, err := codec.NewSynthetic(codec.RealConfig(), 3, be, "fp32")
	if err != nil {
		b.Fatal(err)
	}
	defer cm.Close()
	st := newCodecStage(cm, -1, nil)
	for _, R := range []int{25, 125} {
		ref := make([]int32, R*Codebooks)
		for i := range ref {
			ref[i] = int32(i*37) % 2048
		}
		s := &Stream{req: Request{ID: "bench", Clone: &Clone{XVector: []float32{1}, RefCodes: ref}}, stage: st}
		b.Run(fmt.Sprintf("R=%d", R), func(b *testing.B) {
			for b.Loop() {
				d, err := cm.NewStream()
				if err != nil {
					b.Fatal(err)
				}
				s.dec = d
				if err := st.prime(s, func() float64 { return 0 }); err != nil {
					b.Fatal(err)
				}
				d.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(R), "ms/frame")
		})
	}
}
