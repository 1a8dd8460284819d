package host_test

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/simd"
)

// heard is what a reader took from one stream.
type heard struct {
	codes [][core.Codebooks]int32
	pcm   []float32
	end   core.End
}

// listen reads s to its end, collecting frames and audio; pause (if set) is
// called after each chunk (a slow reader).
func listen(t *testing.T, s *core.Stream, pause func()) heard {
	t.Helper()
	var h heard
	for {
		ev, err := s.Next(context.Background())
		if err == io.EOF {
			return h
		}
		if err != nil {
			t.Errorf("stream %s: %v", s.ID(), err)
			return h
		}
		switch ev.Kind {
		case core.EventFrame:
			h.codes = append(h.codes, ev.Frame.Codes)
		case core.EventChunk:
			h.pcm = append(h.pcm, ev.Chunk.PCM...)
			if pause != nil {
				pause()
			}
		case core.EventEnd:
			h.end = ev.End
		}
	}
}

// decodeAlone decodes codes with the codec alone (one stream, one call) on
// synth:tiny's codec in fp32.
func decodeAlone(t *testing.T, codes [][core.Codebooks]int32) []float32 {
	t.Helper()
	return decodeAloneIn(t, codes, "fp32")
}

// decodeAloneIn is decodeAlone in codec precision prec.
func decodeAloneIn(t *testing.T, codes [][core.Codebooks]int32, prec string) []float32 {
	t.Helper()
	b := simd.NewBackend(1)
	defer b.Close()
	m, err := host.OpenCodec("synth:tiny", b, prec)
	if err != nil {
		t.Fatalf("codec precision %q: %v", prec, err)
	}
	defer m.Close()
	s, err := m.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pcm := make([]float32, len(codes)*m.SamplesPerFrame())
	if err := s.Decode(codes, pcm); err != nil {
		t.Fatal(err)
	}
	return pcm
}

// sameBits reports the first index where a and b differ bit for bit (-1:
// none; len mismatch: the shorter length).
func sameBits(a, b []float32) int {
	for i := range min(len(a), len(b)) {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestSpeechIsTheCompositionOfItsParts: text → audio through the engine
// gives the codes of the same seeded request on an engine without a codec,
// and those codes decoded by the codec alone give the very samples.
func TestSpeechIsTheCompositionOfItsParts(t *testing.T) {
	ctx := context.Background()
	run := func(off bool) heard {
		e, err := host.Open(ctx, host.Options{Model: "synth:tiny", Codec: host.CodecSettings{Off: off}})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		go e.Run(ctx)
		req, err := e.Request(core.TextInput{Text: "Hello, world. How are you today?"})
		if err != nil {
			t.Fatal(err)
		}
		req.MaxFrames, req.Talker.MinTokens = 30, 30
		req.Talker.Seed, req.Predictor.Seed = core.Seed(7), core.Seed(8)
		s, err := e.Submit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return listen(t, s, nil)
	}
	with, without := run(false), run(true)
	if with.end.Reason != core.EndLength || len(with.codes) != 30 {
		t.Fatalf("with codec: end %v after %d frames, want length after 30", with.end.Reason, len(with.codes))
	}
	if len(without.pcm) != 0 {
		t.Fatalf("codec off: %d samples, want none", len(without.pcm))
	}
	for i := range with.codes {
		if with.codes[i] != without.codes[i] {
			t.Fatalf("frame %d: codes %v with the codec, %v without", i, with.codes[i], without.codes[i])
		}
	}
	if len(with.pcm) != 30*1920 {
		t.Fatalf("%d samples, want 30 × 1920", len(with.pcm))
	}
	alone := decodeAlone(t, with.codes)
	if i := sameBits(with.pcm, alone); i >= 0 {
		t.Fatalf("sample %d: engine %v, codec alone %v", i, with.pcm[i], alone[i])
	}
}

// TestSpeechCancelsAndSlowReaders runs many streams with random cancels and
// slow readers over a small unread-audio bound (so slow readers park): every
// stream ends, every stream not cancelled gets the audio of its codes (the
// codec alone on them, bit for bit), and afterwards no KV, decoder state or
// goroutine is left.
func TestSpeechCancelsAndSlowReaders(t *testing.T) {
	ctx := context.Background()
	base := runtime.NumGoroutine()
	eng := core.Config{MaxUnreadMS: 160} // two frames: slow readers park
	e, err := host.Open(ctx, host.Options{Model: "synth:tiny", MaxBatch: 4, Engine: eng, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- e.Run(runCtx) }()
	rng := rand.New(rand.NewPCG(1, 2))
	n := 12
	if testing.Short() {
		n = 8
	}
	type result struct {
		h         heard
		cancelled bool
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		req, err := e.Request(core.TextInput{Text: "One two three."})
		if err != nil {
			t.Fatal(err)
		}
		frames := 6 + rng.IntN(20)
		req.MaxFrames, req.Talker.MinTokens = frames, frames
		req.Talker.Seed = core.Seed(int64(i))
		sctx, cancel := context.WithCancel(ctx)
		s, err := e.Submit(sctx, req)
		if err != nil {
			t.Fatal(err)
		}
		kind := rng.IntN(3) // 0: plain, 1: slow reader, 2: cancelled
		after := time.Duration(rng.IntN(30)) * time.Millisecond
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			var pause func()
			switch kind {
			case 1:
				pause = func() { time.Sleep(15 * time.Millisecond) }
			case 2:
				time.AfterFunc(after, cancel)
			}
			results[i] = result{h: listen(t, s, pause), cancelled: kind == 2}
		}()
	}
	wg.Wait()
	l, err := e.Load()
	if err != nil {
		t.Fatal(err)
	}
	if l.KVBytes != 0 || l.Running != 0 || l.Decoders != 0 {
		t.Errorf("after every stream ended: %+v, want no KV, stream or decoder state", l)
	}
	for i, r := range results {
		h := r.h
		switch h.end.Reason {
		case core.EndLength:
		case core.EndCancelled:
			if !r.cancelled {
				t.Errorf("stream %d: cancelled, but no one cancelled it", i)
			}
			continue
		default:
			t.Errorf("stream %d: end %v (%v)", i, h.end.Reason, h.end.Err)
			continue
		}
		if len(h.pcm) != len(h.codes)*1920 {
			t.Errorf("stream %d: %d samples for %d frames", i, len(h.pcm), len(h.codes))
			continue
		}
		if j := sameBits(h.pcm, decodeAlone(t, h.codes)); j >= 0 {
			t.Errorf("stream %d: sample %d differs from the codec alone on its codes", i, j)
		}
	}
	stop()
	if err := <-ran; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > base {
		t.Errorf("%d goroutines after Close, %d before Open", g, base)
	}
}

// TestSpeechNativeEqualsWASI: the same seeded text request with audio on a
// native engine and on a WASI engine (the guest runs the codec stage inline,
// its kernels as host functions, the PCM handed over in binary) gives the
// same codes and the same samples bit for bit.
func TestSpeechNativeEqualsWASI(t *testing.T) {
	guest := guestModule(t)
	ctx := context.Background()
	run := func(mode host.Mode) heard {
		e, err := host.Open(ctx, host.Options{Model: "synth:tiny", Mode: mode, GuestModule: guest, CacheDir: "-"})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		go e.Run(ctx)
		req, err := e.Request(core.TextInput{Text: "Native or not, the same."})
		if err != nil {
			t.Fatal(err)
		}
		req.MaxFrames, req.Talker.MinTokens = 20, 20
		req.Talker.Seed, req.Predictor.Seed = core.Seed(5), core.Seed(6)
		s, err := e.Submit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return listen(t, s, nil)
	}
	n, w := run(host.Native), run(host.WASI)
	if w.end.Reason != core.EndLength || len(w.pcm) != 20*1920 {
		t.Fatalf("wasi: end %v (%v), %d samples; want length, %d", w.end.Reason, w.end.Err, len(w.pcm), 20*1920)
	}
	for i := range n.codes {
		if n.codes[i] != w.codes[i] {
			t.Fatalf("frame %d: native %v, wasi %v", i, n.codes[i], w.codes[i])
		}
	}
	if i := sameBits(n.pcm, w.pcm); i >= 0 {
		t.Fatalf("sample %d: native %v, wasi %v", i, n.pcm[i], w.pcm[i])
	}
}

// guestModule builds the guest from the sources (the committed guest.wasm
// is rebuilt only after a merge), skipping under -short or without the go
// tool.
func guestModule(t *testing.T) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the guest from the sources (slow on a cold cache)")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found (%v): cannot build the guest", err)
	}
	out := filepath.Join(t.TempDir(), "guest.wasm")
	cmd := exec.Command(gobin, "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false", "-o", out, "../wasm/guest")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the guest: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSpeechUnreadBound: a reader that reads nothing for a while holds at
// most the bound plus the chunks decoded in the batch that crossed it (the
// hop's 4 chunks of at most 25 frames), not the whole stream; once it reads,
// it gets every sample of its codes, exact. Natively the codec stage parks
// the stream; under WASI the host holds the guest's stream.
func TestSpeechUnreadBound(t *testing.T) {
	for _, mode := range []host.Mode{host.Native, host.WASI} {
		t.Run(mode.String(), func(t *testing.T) {
			o := host.Options{Model: "synth:tiny", Threads: 1, Mode: mode, CacheDir: "-"}
			if mode == host.WASI {
				o.GuestModule = guestModule(t)
			}
			unreadBound(t, o)
		})
	}
}

// unreadBound runs TestSpeechUnreadBound on an engine of o.
func unreadBound(t *testing.T, o host.Options) {
	ctx := context.Background()
	const frames, boundMS = 400, 160
	o.Engine.MaxUnreadMS = boundMS
	e, err := host.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	go e.Run(ctx)
	req, err := e.Request(core.TextInput{Text: "Wait for me."})
	if err != nil {
		t.Fatal(err)
	}
	req.MaxFrames, req.Talker.MinTokens, req.Talker.Seed = frames, frames, core.Seed(9)
	s, err := e.Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// Wait for the event that matters: generation has made every frame
	// (the engine holds no running or waiting stream), so the audio the
	// stream holds unread can only shrink from here.
	for {
		l, err := e.Load()
		if err != nil {
			t.Fatal(err)
		}
		if l.Running == 0 && l.Waiting == 0 && l.Steps >= frames {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	limit := boundMS/80*1920 + 4*25*1920
	if u := s.Unread(); u > limit {
		t.Errorf("%d samples unread, want at most %d (bound + one batch)", u, limit)
	}
	h := listen(t, s, nil)
	if h.end.Reason != core.EndLength || len(h.pcm) != frames*1920 {
		t.Fatalf("end %v, %d samples; want length, %d", h.end.Reason, len(h.pcm), frames*1920)
	}
	if i := sameBits(h.pcm, decodeAlone(t, h.codes)); i >= 0 {
		t.Fatalf("sample %d differs from the codec alone", i)
	}
}

// TestSpeechCloseDropsParkedAudio: closing an engine does not decode the
// chunks a stream parked for its absent reader (they could be its whole
// length); that stream ends cancelled with core.ErrClosed.
func TestSpeechCloseDropsParkedAudio(t *testing.T) {
	ctx := context.Background()
	e, err := host.Open(ctx, host.Options{Model: "synth:tiny", Threads: 1, Engine: core.Config{MaxUnreadMS: 160}})
	if err != nil {
		t.Fatal(err)
	}
	go e.Run(ctx)
	req, err := e.Request(core.TextInput{Text: "Nobody listens."})
	if err != nil {
		t.Fatal(err)
	}
	req.MaxFrames, req.Talker.MinTokens = 2000, 2000
	s, err := e.Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the stream's unread audio reached the bound and the engine
	// has generated two more chunks' worth of frames since: those chunks are
	// parked undecoded when Close comes.
	for s.Unread() < 160/80*1920 {
		time.Sleep(5 * time.Millisecond)
	}
	l0, err := e.Load()
	if err != nil {
		t.Fatal(err)
	}
	for {
		l, err := e.Load()
		if err != nil {
			t.Fatal(err)
		}
		if l.Steps >= l0.Steps+50 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	h := listen(t, s, nil)
	if h.end.Reason != core.EndCancelled || !errors.Is(h.end.Err, core.ErrClosed) {
		t.Fatalf("end %v (%v), want cancelled by core.ErrClosed", h.end.Reason, h.end.Err)
	}
	if len(h.pcm) >= len(h.codes)*1920 {
		t.Errorf("%d samples for %d frames: the parked audio was decoded at Close", len(h.pcm), len(h.codes))
	}
}
