package host

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wcache"
)

// WeightCache configures the prepared-weights cache: the first load of a
// checkpoint at a precision writes what the kernels use (quantized blocks,
// packed panels, scales, tables, the codec's packed convolutions) to one
// file per checkpoint × part (talker, codec) × precision; later loads map
// that file read-only instead of preparing the weights again. A file that
// is stale, truncated, foreign or damaged is refused with its reason (on
// Log) and rebuilt; a directory that cannot be written leaves the load in
// memory, with one warning.
type WeightCache struct {
	// Dir holds the cache files; "" turns the cache off (the default for
	// the Go API; the omni command passes DefaultWeightCacheDir).
	Dir string
	// Log receives one line per cache event (mapped, refused and why,
	// written, cannot write, copied into private memory); nil discards
	// them. The private copy behind the load writes after Open returns,
	// until Close.
	Log io.Writer
	// Memory says where a mapped file's weights live once loaded
	// (wcache_private.go; default PrivateBehind).
	Memory WeightMemory
}

// preparedVersion is the version of what the loaders prepare from a
// checkpoint beyond the kernel layout (the guarded channels, the smoothing
// of norms into matrices, the codec's packing order): bump it when they
// change, so old cache files are refused as stale.
const preparedVersion = 1

// DefaultWeightCacheDir returns the prepared-weights cache directory:
// $OMNI_CACHE_DIR when set, else <user cache dir>/omni/weights
// ($XDG_CACHE_HOME/omni/weights or ~/.cache/omni/weights on Linux).
func DefaultWeightCacheDir() (string, error) {
	if d := os.Getenv("OMNI_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("host: weight cache: %w", err)
	}
	return filepath.Join(d, "omni", "weights"), nil
}

// cacheRun is the cache as one Open uses it (the talker's load and the
// codec's share the build digest and the one warning).
type cacheRun struct {
	WeightCache
	build string // digest of this program's executable

	mu      sync.Mutex
	warned  bool
	writing sync.WaitGroup // files being written behind the load
	mapped  []*wcache.File // files the load mapped (for the private copy)
}

// newCacheRun returns the cache of one Open (nil when off).
func newCacheRun(c WeightCache) *cacheRun {
	if c.Dir == "" {
		return nil
	}
	return &cacheRun{WeightCache: c, build: buildDigest()}
}

// logf writes one line to the log.
func (c *cacheRun) logf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Log != nil {
		fmt.Fprintf(c.Log, "cache: "+format+"\n", args...)
	}
}

// warnOnce logs the cannot-write warning the first time only.
func (c *cacheRun) warnOnce(err error) {
	c.mu.Lock()
	first := !c.warned
	c.warned = true
	c.mu.Unlock()
	if first {
		c.logf("warning: cannot write the prepared-weights cache (%v); loading in memory", err)
	}
}

// wait waits for the files written behind the load (Open returns after
// them, so a short run still leaves its files).
func (c *cacheRun) wait() {
	if c != nil {
		c.writing.Wait()
	}
}

// buildDigest hashes this program's executable: the code that prepares
// the weights (a rebuilt omni refuses the files of another build).
func buildDigest() string {
	exe, err := os.Executable()
	if err == nil {
		var f *os.File
		if f, err = os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err = io.Copy(h, f); err == nil {
				return hex.EncodeToString(h.Sum(nil)[:12])
			}
		}
	}
	return "unknown (" + err.Error() + ")"
}

// prepare runs a load through nb's cache. With a valid file at path for
// key, replay runs on nb replaying it (it returns an undo for a replay the
// file did not match in full); otherwise cold runs while nb records and the
// recording is written to path with cold's metadata. Cache failures are
// logged and the load goes on in memory; only cold's error is returned.
func (c *cacheRun) prepare(nb *simd.Backend, path string, key wcache.Key, about string,
	replay func(meta map[string]json.RawMessage) (undo func(), err error),
	cold func() (meta map[string]any, err error)) error {
	if c == nil {
		_, err := cold()
		return err
	}
	t0 := time.Now()
	f, err := wcache.Open(path, key)
	switch {
	case err == nil:
		if rerr := nb.Replay(f); rerr != nil {
			err = rerr
			break
		}
		undo, rerr := replay(f.Meta)
		if end := nb.EndReplay(); rerr == nil && end != nil {
			undo()
			rerr = end
		}
		if rerr == nil {
			c.mappedFile(f)
			c.logf("mapped %s (%.0f MB, %s) in %.2f s", path, float64(f.Size())/1e6, about, time.Since(t0).Seconds())
			return nil
		}
		c.logf("refused %s: %v; preparing the weights again", path, rerr)
	case errors.Is(err, fs.ErrNotExist):
		c.logf("no %s yet: preparing %s (written for the next start)", filepath.Base(path), about)
	default:
		c.logf("refused %v; preparing the weights again", err)
	}
	nb.Record()
	meta, err := cold()
	rec := nb.TakeRecording()
	if err != nil {
		return err
	}
	// The file is written behind the next load (the codec's after the
	// talker's); Open waits for it before it returns.
	c.writing.Add(1)
	go func() {
		defer c.writing.Done()
		t1 := time.Now()
		if err := c.write(rec, path, key, about, meta); err != nil {
			c.warnOnce(err)
			return
		}
		c.logf("wrote %s in %.2f s", path, time.Since(t1).Seconds())
	}()
	return nil
}

// write saves a recording at path.
func (c *cacheRun) write(rec *simd.Recording, path string, key wcache.Key, about string, meta map[string]any) error {
	w, err := wcache.Create(path)
	if err != nil {
		return err
	}
	for k, v := range meta {
		if err := w.SetMeta(k, v); err != nil {
			w.Abort()
			return err
		}
	}
	if err := rec.Save(w); err != nil {
		w.Abort()
		return err
	}
	return w.Commit(key, about, simd.CacheLayout)
}

// hollowSource is a Source whose whole-tensor reads do nothing while a
// replayed load runs (the backend answers from the cache file, so the
// values are never used); row reads (text embeddings) and every read after
// the load go to the real source.
type hollowSource struct {
	predictor.Source
	loading bool
}

// Hollow tells the predictor's loader that whole-tensor reads are hollow.
func (h *hollowSource) Hollow() bool { return h.loading }

// ReadF32 implements predictor.Source.
func (h *hollowSource) ReadF32(name string, dst []float32) error {
	if h.loading {
		return nil
	}
	return h.Source.ReadF32(name, dst)
}

// loadWeights loads src's talker and code predictor in prec on b (nb, or
// a recorder over nb), through the cache when c is on.
func (c *cacheRun) loadWeights(spec string, src predictor.Source, nb *simd.Backend, b predictor.Backend, prec predictor.Precision) (*predictor.Weights, error) {
	var w *predictor.Weights
	cold := func() (map[string]any, error) {
		var err error
		w, err = predictor.LoadWeights(src, b, prec)
		if err != nil {
			return nil, err
		}
		return map[string]any{"guards": w.Guards}, nil
	}
	if c == nil {
		_, err := cold()
		return w, err
	}
	key, name, err := modelKey(spec, src)
	if err != nil {
		c.logf("%v; loading in memory", err)
		_, err := cold()
		return w, err
	}
	key = append(key, "part=talker", "precision="+prec.String(), "layout="+simd.CacheLayout,
		fmt.Sprintf("prepared=%d", preparedVersion), "build="+c.build)
	path := filepath.Join(c.Dir, fmt.Sprintf("%s-talker-%s.owc", name, prec))
	replay := func(meta map[string]json.RawMessage) (func(), error) {
		var g predictor.Guards
		if err := json.Unmarshal(meta["guards"], &g); err != nil {
			return nil, fmt.Errorf("guarded channels: %w", err)
		}
		hs := &hollowSource{Source: src, loading: true}
		var err error
		w, err = predictor.LoadWeightsGuarded(hs, b, prec, &g)
		hs.loading = false
		if err != nil {
			return nil, err
		}
		return w.Free, nil
	}
	err = c.prepare(nb, path, key, fmt.Sprintf("talker and code predictor of %s in %s", spec, prec), replay, cold)
	return w, err
}

// openCodec opens the codec of spec in precision on b (nb, or a recorder
// over nb), through the cache when c is on.
func (c *cacheRun) openCodec(spec string, load func(codec.Backend) (*codec.Model, error), nb *simd.Backend, b codec.Backend, precision string) (*codec.Model, error) {
	precision, err := codecPrecision(precision)
	if err != nil {
		return nil, fmt.Errorf("host: codec: %w", err)
	}
	var m *codec.Model
	cold := func() (map[string]any, error) {
		var err error
		m, err = load(b)
		return nil, err
	}
	if c == nil {
		_, err := cold()
		return m, err
	}
	key, name, cfg, err := codecKey(spec)
	if err != nil {
		c.logf("%v; loading in memory", err)
		_, err := cold()
		return m, err
	}
	key = append(key, "part=codec", "precision="+precision, "layout="+simd.CacheLayout,
		fmt.Sprintf("prepared=%d", preparedVersion), "build="+c.build)
	path := filepath.Join(c.Dir, fmt.Sprintf("%s-codec-%s.owc", name, precision))
	replay := func(map[string]json.RawMessage) (func(), error) {
		var err error
		if m, err = codec.Replay(cfg, b, precision); err != nil {
			return nil, err
		}
		return func() { m.Close() }, nil
	}
	err = c.prepare(nb, path, key, fmt.Sprintf("codec of %s in %s", spec, precision), replay, cold)
	return m, err
}

// modelKey returns the key lines of a model spec's content and the stem
// of its cache files' names.
func modelKey(spec string, src predictor.Source) (wcache.Key, string, error) {
	if spec == "" {
		return nil, "", fmt.Errorf("no model spec to key the cache by")
	}
	if strings.HasPrefix(spec, "synth:") {
		canon := spec
		if s, ok := src.(fmt.Stringer); ok {
			canon = s.String()
		}
		key := wcache.Key{"model=" + canon}
		// A sample of the generated values: a changed generator gives a
		// changed key.
		h := sha256.New()
		for _, t := range src.Tensors() {
			if len(t.Shape) != 2 || !strings.HasSuffix(t.Name, "proj.weight") && !strings.Contains(t.Name, "embedding") {
				continue
			}
			row := make([]float32, t.Shape[1])
			if err := src.ReadRowsF32(t.Name, 0, 1, row); err != nil {
				return nil, "", fmt.Errorf("key of %s: %w", spec, err)
			}
			fmt.Fprintf(h, "%s %v\n", t.Name, row[:min(len(row), 8)])
		}
		key = append(key, "synth-sample="+hex.EncodeToString(h.Sum(nil)[:12]))
		return key, stem(canon, canon), nil
	}
	dir, _, err := hub.Resolve(spec)
	if err != nil {
		return nil, "", err
	}
	key, err := dirKey(dir, false)
	if err != nil {
		return nil, "", err
	}
	abs, _ := filepath.Abs(dir)
	return key, stem(filepath.Base(abs), abs), nil
}

// codecKey returns the key lines of a codec spec's content, the stem of
// its cache files' names and its geometry.
func codecKey(spec string) (wcache.Key, string, codec.Config, error) {
	if rest, ok := strings.CutPrefix(spec, "synth:"); ok {
		size, _, _ := strings.Cut(rest, "@")
		size, _, _ = strings.Cut(size, "+")
		seed := "1"
		if i := strings.LastIndexByte(rest, '@'); i >= 0 {
			seed = rest[i+1:]
		}
		cfg := SynthCodecConfig(size)
		cj, err := cfg.JSON()
		if err != nil {
			return nil, "", cfg, err
		}
		sum := sha256.Sum256(cj)
		canon := "synth:" + size + "@" + seed
		return wcache.Key{"codec=" + canon, "codec-config=" + hex.EncodeToString(sum[:12])}, stem(canon, canon), cfg, nil
	}
	dir, _, err := hub.Resolve(spec)
	if err != nil {
		return nil, "", codec.Config{}, err
	}
	dir = codec.Dir(dir)
	cfg, err := codec.LoadConfig(dir)
	if err != nil {
		return nil, "", cfg, err
	}
	key, err := dirKey(dir, true)
	if err != nil {
		return nil, "", cfg, err
	}
	abs, _ := filepath.Abs(dir)
	return key, stem(filepath.Base(filepath.Dir(abs)), abs), cfg, nil
}

// dirKey returns one key line per checkpoint file of dir (the JSON and
// safetensors files; with flat, not those of speech_tokenizer/): its
// size, its modification time and a hash of its header (the whole file
// for JSON, the safetensors header for weights).
func dirKey(dir string, flat bool) (wcache.Key, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("key of %s: %w", dir, err)
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && (strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".safetensors")) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var key wcache.Key
	for _, n := range names {
		l, err := fileKey(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		key = append(key, "file "+n+"="+l)
	}
	if len(key) == 0 {
		return nil, fmt.Errorf("key of %s: no checkpoint files", dir)
	}
	return key, nil
}

// fileKey describes one checkpoint file: size, mtime and header hash.
func fileKey(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("key of %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("key of %s: %w", path, err)
	}
	n := st.Size()
	if strings.HasSuffix(path, ".safetensors") {
		var lb [8]byte
		if _, err := f.ReadAt(lb[:], 0); err != nil {
			return "", fmt.Errorf("key of %s: %w", path, err)
		}
		hl := int64(lb[0]) | int64(lb[1])<<8 | int64(lb[2])<<16 | int64(lb[3])<<24 | int64(lb[4])<<32 | int64(lb[5])<<40 | int64(lb[6])<<48 | int64(lb[7])<<56
		n = min(8+max(hl, 0), st.Size(), 100<<20)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, n)); err != nil {
		return "", fmt.Errorf("key of %s: %w", path, err)
	}
	return fmt.Sprintf("size %d mtime %d header %x", st.Size(), st.ModTime().UnixNano(), h.Sum(nil)[:12]), nil
}

// stem makes a file-name stem of a readable name and a hash of id (so
// two checkpoints of one base name get two files).
func stem(readable, id string) string {
	var b strings.Builder
	for _, r := range readable {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(id))
	return fmt.Sprintf("%s-%x", b.String(), sum[:4])
}
