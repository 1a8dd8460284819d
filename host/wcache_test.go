package host

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm"
	"github.com/omni-tts/omni/wcache"
)

// spoken is what one seeded request made: its codes and its samples.
type spoken struct {
	codes [][core.Codebooks]int32
	pcm   []float32
}

// syncBuf is a log safe for concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// speak opens model with the cache in dir ("" = off) and runs one seeded
// request with audio to its end.
func speak(t *testing.T, model, dir string, log io.Writer) spoken {
	t.Helper()
	return speakWith(t, model, WeightCache{Dir: dir, Log: log})
}

// speakWith is speak with the whole cache configuration.
func speakWith(t *testing.T, model string, wc WeightCache) spoken {
	t.Helper()
	ctx := context.Background()
	e, err := Open(ctx, Options{Model: model, Threads: 1, WeightCache: wc})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	req := core.NewRequest([]int32{3, 7, 11, 5})
	req.MaxFrames, req.Talker.MinTokens = 6, 6
	req.Talker.Seed, req.Predictor.Seed = core.Seed(5), core.Seed(6)
	s, err := e.Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	go e.Run(ctx)
	var out spoken
	for {
		ev, err := s.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case core.EventFrame:
			out.codes = append(out.codes, ev.Frame.Codes)
		case core.EventChunk:
			out.pcm = append(out.pcm, ev.Chunk.PCM...)
		}
	}
	if len(out.codes) != 6 || len(out.pcm) != 6*1920 {
		t.Fatalf("%d frames, %d samples; want 6 and %d", len(out.codes), len(out.pcm), 6*1920)
	}
	return out
}

// sameSpeech fails when got differs from want in a code or a sample's bits.
func sameSpeech(t *testing.T, what string, got, want spoken) {
	t.Helper()
	if !slices.Equal(got.codes, want.codes) {
		t.Errorf("%s: codes %v, want %v", what, got.codes, want.codes)
	}
	if !slices.EqualFunc(got.pcm, want.pcm, func(a, b float32) bool { return a == b || a != a && b != b }) {
		t.Errorf("%s: samples differ from a load without the cache", what)
	}
}

// cacheFiles returns the .owc files of dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.owc"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWeightCacheWarmEqualsCold: the first start writes a talker and a
// codec file, the second maps both, and both speak exactly as a start
// without the cache.
func TestWeightCacheWarmEqualsCold(t *testing.T) {
	ref := speak(t, "synth:tiny", "", nil)
	dir := t.TempDir()
	var log1, log2 bytes.Buffer
	sameSpeech(t, "cold start", speak(t, "synth:tiny", dir, &log1), ref)
	if n := len(cacheFiles(t, dir)); n != 2 || strings.Count(log1.String(), "cache: wrote") != 2 {
		t.Fatalf("after a cold start: %d files; log:\n%s", n, log1.String())
	}
	sameSpeech(t, "warm start", speak(t, "synth:tiny", dir, &log2), ref)
	if strings.Count(log2.String(), "cache: mapped") != 2 || strings.Contains(log2.String(), "wrote") {
		t.Fatalf("a warm start did not map both files; log:\n%s", log2.String())
	}
	t.Logf("cold:\n%swarm:\n%s", log1.String(), log2.String())
}

// TestWeightCacheLogitsBitIdentical: the first steps' logits and codes of
// a model loaded from the cache file equal those of the cold load bit for
// bit.
func TestWeightCacheLogitsBitIdentical(t *testing.T) {
	const spec = "synth:tiny"
	dir := t.TempDir()
	probe := func() ([]uint32, [][16]int32, string) {
		src, err := predictor.OpenModel(spec)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		nb := simd.NewBackend(1)
		defer nb.Close()
		var log bytes.Buffer
		c := newCacheRun(WeightCache{Dir: dir, Log: &log})
		w, err := c.loadWeights(spec, src, nb, nb, predictor.Int8)
		if err != nil {
			t.Fatal(err)
		}
		c.wait()
		m, err := core.NewModel(w, core.ModelOptions{MaxBatch: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		bits, codes, err := wasm.Probe(m, probeEmbeds(3, src.Config().Talker.Hidden), 4)
		if err != nil {
			t.Fatal(err)
		}
		return bits, codes, log.String()
	}
	b0, c0, l0 := probe()
	b1, c1, l1 := probe()
	if !strings.Contains(l0, "wrote") || !strings.Contains(l1, "mapped") {
		t.Fatalf("cold log %q, warm log %q", l0, l1)
	}
	if len(b0) == 0 || !slices.Equal(b0, b1) || !slices.Equal(c0, c1) {
		t.Fatalf("logits or codes of the cached load differ from the cold load (%d vs %d logits)", len(b0), len(b1))
	}
}

// TestWeightCacheRefusals damages the cache in each way it can be, and
// checks that the next start says why it refused the file, speaks exactly
// as without the cache, and leaves a valid file for the start after.
func TestWeightCacheRefusals(t *testing.T) {
	ref := speak(t, "synth:tiny", "", nil)
	talker := func(dir string) string {
		for _, f := range cacheFiles(t, dir) {
			if strings.Contains(f, "-talker-") {
				return f
			}
		}
		t.Fatal("no talker file")
		return ""
	}
	edit := func(path string, f func([]byte) []byte) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		says   string
	}{
		{"truncated", func(t *testing.T, dir string) {
			edit(talker(dir), func(b []byte) []byte { return b[:len(b)*2/3] })
		}, "truncated"},
		{"flipped payload byte", func(t *testing.T, dir string) {
			edit(talker(dir), func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b })
		}, "checksum"},
		{"flipped header byte", func(t *testing.T, dir string) {
			edit(talker(dir), func(b []byte) []byte { b[30] ^= 1; return b })
		}, "header checksum"},
		{"wrong version", func(t *testing.T, dir string) {
			edit(talker(dir), func(b []byte) []byte {
				binary.LittleEndian.PutUint32(b[8:], wcache.Version+1)
				binary.LittleEndian.PutUint32(b[76:], crc32.Checksum(b[:76], crc32.MakeTable(crc32.Castagnoli)))
				return b
			})
		}, "other format version"},
		{"other checkpoint", func(t *testing.T, dir string) {
			// synth:tiny@2's talker file under synth:tiny@1's name
			other := t.TempDir()
			speak(t, "synth:tiny@2", other, nil)
			b, err := os.ReadFile(talker(other))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(talker(dir), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "synth:tiny@2"},
		{"foreign file", func(t *testing.T, dir string) {
			edit(talker(dir), func(b []byte) []byte { return []byte("RIFF....WAVEfmt ") })
		}, "not an omni cache file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			speak(t, "synth:tiny", dir, nil)
			c.damage(t, dir)
			var log bytes.Buffer
			sameSpeech(t, c.name, speak(t, "synth:tiny", dir, &log), ref)
			if !strings.Contains(log.String(), "refused") || !strings.Contains(log.String(), c.says) || !strings.Contains(log.String(), "-talker-") {
				t.Fatalf("log does not refuse the talker file saying %q:\n%s", c.says, log.String())
			}
			t.Logf("%s", strings.TrimSpace(log.String()))
			var again bytes.Buffer
			speak(t, "synth:tiny", dir, &again)
			if strings.Count(again.String(), "mapped") != 2 {
				t.Fatalf("the start after did not map the rebuilt file:\n%s", again.String())
			}
		})
	}
}

// TestWeightCacheCheckpointRewritten: a checkpoint directory rewritten in
// place (same name, new bytes or a new mtime) makes its cache file stale;
// the start after refuses it naming the file that changed.
func TestWeightCacheCheckpointRewritten(t *testing.T) {
	ckpt := t.TempDir()
	src, err := predictor.OpenModel("synth:tiny")
	if err != nil {
		t.Fatal(err)
	}
	if err := predictor.WriteHF(src, ckpt); err != nil {
		t.Fatal(err)
	}
	src.Close()
	if err := codec.WriteSynthetic(filepath.Join(ckpt, "speech_tokenizer"), SynthCodecConfig("tiny"), 1); err != nil {
		t.Fatal(err)
	}
	ref := speak(t, ckpt, "", nil)
	dir := t.TempDir()
	speak(t, ckpt, dir, nil)
	w := filepath.Join(ckpt, "model.safetensors")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(w, later, later); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sameSpeech(t, "rewritten checkpoint", speak(t, ckpt, dir, &log), ref)
	if !strings.Contains(log.String(), "made from other inputs") || !strings.Contains(log.String(), "model.safetensors") {
		t.Fatalf("log does not refuse the stale file naming model.safetensors:\n%s", log.String())
	}
	t.Logf("%s", strings.TrimSpace(log.String()))
}

// TestWeightCacheUnwritableDir: a cache directory that cannot be written
// (here a path below a regular file, so it fails for root too) leaves the
// load in memory with exactly one warning, and the speech is the same.
func TestWeightCacheUnwritableDir(t *testing.T) {
	ref := speak(t, "synth:tiny", "", nil)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sameSpeech(t, "unwritable dir", speak(t, "synth:tiny", filepath.Join(file, "cache"), &log), ref)
	if n := strings.Count(log.String(), "warning: cannot write"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, log.String())
	}
	t.Logf("%s", strings.TrimSpace(log.String()))
	if os.Getuid() != 0 { // root writes into read-only directories
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(ro, 0o755)
		log.Reset()
		sameSpeech(t, "read-only dir", speak(t, "synth:tiny", ro, &log), ref)
		if n := strings.Count(log.String(), "warning: cannot write"); n != 1 {
			t.Fatalf("read-only dir: %d warnings, want 1:\n%s", n, log.String())
		}
	}
}

// TestWeightCacheConcurrentFirstStarts: two first starts at once on one
// empty cache both speak correctly and leave valid files (each writes a
// temporary file and renames it), which the next start maps.
func TestWeightCacheConcurrentFirstStarts(t *testing.T) {
	ref := speak(t, "synth:tiny", "", nil)
	dir := t.TempDir()
	var wg sync.WaitGroup
	var log syncBuf
	got := make([]spoken, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = speak(t, "synth:tiny", dir, &log)
		}()
	}
	wg.Wait()
	for i := range got {
		sameSpeech(t, "concurrent start", got[i], ref)
	}
	var again bytes.Buffer
	sameSpeech(t, "start after", speak(t, "synth:tiny", dir, &again), ref)
	if strings.Count(again.String(), "mapped") != 2 {
		t.Fatalf("the start after two concurrent first starts did not map both files:\n%s\n(first starts:\n%s)", again.String(), log.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("%d entries in the cache directory, want 2 (no temporary files left)", len(ents))
	}
}

// TestWeightCacheWASI: a WASI engine loads through the same cache (the
// host owns the weights) and speaks as a native one without the cache.
func TestWeightCacheWASI(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the guest")
	}
	dir := t.TempDir()
	speak(t, "synth:tiny", dir, nil)
	ctx := context.Background()
	var log bytes.Buffer
	e, err := Open(ctx, Options{Model: "synth:tiny", Mode: WASI, Threads: 1, CacheDir: "-", WeightCache: WeightCache{Dir: dir, Log: &log}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if strings.Count(log.String(), "mapped") != 2 {
		t.Fatalf("the WASI engine did not map both files:\n%s", log.String())
	}
	nat, err := Open(ctx, Options{Model: "synth:tiny", Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer nat.Close()
	reqs := seededRequests(2, 5)
	nc, _ := runAll(t, nat, reqs)
	wc, _ := runAll(t, e, reqs)
	for i := range reqs {
		if len(nc[i]) == 0 || !slices.Equal(nc[i], wc[i]) {
			t.Errorf("request %d: native %v, WASI from the cache %v", i, nc[i], wc[i])
		}
	}
}
