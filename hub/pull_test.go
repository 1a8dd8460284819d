package hub_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"github.com/omni-tts/omni/safetensors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/hub/hubtest"
	"github.com/omni-tts/omni/predictor"
)

// synthFiles returns the files of a Qwen3-TTS repo holding the tiny
// synthetic checkpoint (written by predictor.WriteHF), tokenizer and codec
// stand-ins, and two files a pull must skip.
func synthFiles(t *testing.T) map[string][]byte {
	t.Helper()
	src, err := predictor.NewSynth("tiny", false, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dir := t.TempDir()
	if err := predictor.WriteHF(src, dir); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range []string{"config.json", "generation_config.json", "model.safetensors"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	codec := filepath.Join(dir, "codec.safetensors")
	w := make([]byte, 4*64)
	for i := range 64 {
		binary.LittleEndian.PutUint32(w[4*i:], math.Float32bits(float32(i)))
	}
	if err := safetensors.Write(codec, []safetensors.WriteTensor{{Name: "decoder.pre_conv.conv.weight", DType: safetensors.F32, Shape: []int{8, 8}, Data: w}}, nil); err != nil {
		t.Fatal(err)
	}
	files["speech_tokenizer/model.safetensors"], _ = os.ReadFile(codec)
	files["speech_tokenizer/config.json"] = []byte(`{"model_type": "qwen3_tts_tokenizer_12hz"}`)
	files["vocab.json"] = []byte(`{"a": 0, "b": 1}`)
	files["merges.txt"] = []byte("#version: 0.2\na b\n")
	files["tokenizer_config.json"] = []byte(`{"model_max_length": 32768}`)
	files["README.md"] = []byte("# not needed\n")
	files[".gitattributes"] = []byte("*.safetensors filter=lfs diff=lfs merge=lfs -text\n")
	return files
}

// pullOpts points a pull at the fake hub with a fresh cache and fast retries.
func pullOpts(t *testing.T, s *hubtest.Server, progress *bytes.Buffer) hub.Options {
	o := hub.Options{Endpoint: s.URL, CacheDir: t.TempDir(), Backoff: time.Millisecond, Retries: 3}
	if progress != nil {
		o.Progress = progress
	}
	return o
}

func TestPullSynthCheckpoint(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := synthFiles(t)
	repo := s.AddRepo("Qwen/Qwen3-TTS-Tiny", files)
	var out bytes.Buffer
	o := pullOpts(t, s, &out)
	res, err := hub.Pull(context.Background(), "Qwen/Qwen3-TTS-Tiny", o)
	t.Logf("progress:\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != repo.Commit {
		t.Errorf("commit %s, want %s", res.Commit, repo.Commit)
	}
	repoDir := filepath.Join(o.CacheDir, "models--Qwen--Qwen3-TTS-Tiny")
	if res.Dir != filepath.Join(repoDir, "snapshots", repo.Commit) {
		t.Errorf("dir %s", res.Dir)
	}
	if b, err := os.ReadFile(filepath.Join(repoDir, "refs", "main")); err != nil || string(b) != repo.Commit {
		t.Errorf("refs/main = %q, %v; want %s", b, err, repo.Commit)
	}
	var pulled []string
	for _, f := range res.Files {
		pulled = append(pulled, f.Path)
	}
	slices.Sort(pulled)
	want := []string{"config.json", "generation_config.json", "merges.txt", "model.safetensors",
		"speech_tokenizer/config.json", "speech_tokenizer/model.safetensors", "tokenizer_config.json", "vocab.json"}
	if !slices.Equal(pulled, want) {
		t.Errorf("pulled %v, want %v", pulled, want)
	}
	// Each snapshot file is a relative symlink to blobs/<etag>, where the etag
	// is the LFS sha256 for .safetensors files and the git blob sha1 otherwise.
	for _, p := range want {
		etag := hubtest.GitSHA1(files[p])
		if hubtest.IsLFS(p) {
			etag = hubtest.SHA256(files[p])
		}
		link := filepath.Join(res.Dir, filepath.FromSlash(p))
		target, err := os.Readlink(link)
		wantTarget := strings.Repeat("../", 2+strings.Count(p, "/")) + "blobs/" + etag
		if err != nil || target != wantTarget {
			t.Errorf("%s -> %q (%v), want %q", p, target, err, wantTarget)
		}
		if b, err := os.ReadFile(link); err != nil || !bytes.Equal(b, files[p]) {
			t.Errorf("%s: content differs from the hub's (%v)", p, err)
		}
	}
	// The snapshot opens as the checkpoint that was written.
	src, err := predictor.OpenModel(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := predictor.CheckTensors(src); err != nil {
		t.Error(err)
	}
	src.Close()
	// Resolve finds it by name; a second pull downloads nothing.
	if dir, ok, err := (hub.Cache{Dir: o.CacheDir}).Resolve("Qwen/Qwen3-TTS-Tiny"); err != nil || !ok || dir != res.Dir {
		t.Errorf("Resolve = %s, %v, %v; want %s", dir, ok, err, res.Dir)
	}
	before := len(s.Requests())
	res2, err := hub.Pull(context.Background(), "Qwen/Qwen3-TTS-Tiny", o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res2.Files {
		if f.Downloaded {
			t.Errorf("second pull downloaded %s again", f.Path)
		}
	}
	for _, r := range s.Requests()[before:] {
		if r.Method == "GET" && r.Server == "cdn" || r.Method == "GET" && !strings.HasPrefix(r.Path, "/api/") {
			t.Errorf("second pull: %s %s %s", r.Server, r.Method, r.Path)
		}
	}
}

func TestPullResumesAfterCut(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := synthFiles(t)
	repo := s.AddRepo("Qwen/Tiny", files)
	size := int64(len(files["model.safetensors"]))
	cut := size / 3
	repo.CutAfter["model.safetensors"] = cut
	repo.CutAfter["config.json"] = 10
	var out bytes.Buffer
	res, err := hub.Pull(context.Background(), "Qwen/Tiny", pullOpts(t, s, &out))
	t.Logf("progress:\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	var ranges []string
	for _, r := range s.Requests() {
		if r.Server == "cdn" && r.Method == "GET" && r.Path == "model.safetensors" {
			ranges = append(ranges, r.Server+" "+r.Range)
		}
	}
	wantRanges := []string{"cdn ", "cdn bytes=" + itoa(cut) + "-"}
	if !slices.Equal(ranges, wantRanges) {
		t.Errorf("GETs of model.safetensors: %q, want %q", ranges, wantRanges)
	}
	for _, p := range []string{"model.safetensors", "config.json"} {
		if b, err := os.ReadFile(filepath.Join(res.Dir, p)); err != nil || !bytes.Equal(b, files[p]) {
			t.Errorf("%s after resume differs from the hub's (%v)", p, err)
		}
	}
	if !strings.Contains(out.String(), "model.safetensors: resuming at ") {
		t.Errorf("progress does not report the resume:\n%s", out.String())
	}
}

func TestPullResumesIncompleteFile(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := synthFiles(t)
	s.AddRepo("Qwen/Tiny", files)
	var out bytes.Buffer
	o := pullOpts(t, s, &out)
	// An earlier pull was killed after 1000 bytes of the weights.
	blobs := filepath.Join(o.CacheDir, "models--Qwen--Tiny", "blobs")
	os.MkdirAll(blobs, 0o755)
	part := filepath.Join(blobs, hubtest.SHA256(files["model.safetensors"])+".incomplete")
	if err := os.WriteFile(part, files["model.safetensors"][:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := hub.Pull(context.Background(), "Qwen/Tiny", o)
	t.Logf("progress:\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	var ranges []string
	for _, r := range s.Requests() {
		if r.Server == "cdn" && r.Method == "GET" && r.Path == "model.safetensors" {
			ranges = append(ranges, r.Range)
		}
	}
	if !slices.Equal(ranges, []string{"bytes=1000-"}) {
		t.Errorf("GETs of model.safetensors had ranges %q, want one of bytes=1000-", ranges)
	}
	if b, _ := os.ReadFile(filepath.Join(res.Dir, "model.safetensors")); !bytes.Equal(b, files["model.safetensors"]) {
		t.Error("resumed weights differ from the hub's")
	}
	if _, err := os.Stat(part); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".incomplete left behind: %v", err)
	}
}

func TestPullRefusesCorruptBlob(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := synthFiles(t)
	repo := s.AddRepo("Qwen/Tiny", files)
	repo.Corrupt["model.safetensors"] = true
	var out bytes.Buffer
	o := pullOpts(t, s, &out)
	_, err := hub.Pull(context.Background(), "Qwen/Tiny", o)
	t.Logf("progress:\n%s\nerror: %v", out.String(), err)
	if !errors.Is(err, hub.ErrChecksum) || !strings.Contains(err.Error(), "model.safetensors") ||
		!strings.Contains(err.Error(), hubtest.SHA256(files["model.safetensors"])) {
		t.Fatalf("err = %v, want a checksum error naming model.safetensors and its published sha256", err)
	}
	ents, _ := os.ReadDir(filepath.Join(o.CacheDir, "models--Qwen--Tiny", "blobs"))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), hubtest.SHA256(files["model.safetensors"])) {
			t.Errorf("bad blob kept: %s", e.Name())
		}
	}
	if _, ok, err := (hub.Cache{Dir: o.CacheDir}).Resolve("Qwen/Tiny"); ok || !errors.Is(err, hub.ErrNotCached) {
		t.Errorf("a failed pull left a resolvable ref (ok %v, err %v)", ok, err)
	}
	// A corrupted small file is caught by its git blob sha1.
	repo.Corrupt["model.safetensors"] = false
	repo.Corrupt["config.json"] = true
	_, err = hub.Pull(context.Background(), "Qwen/Tiny", pullOpts(t, s, nil))
	if !errors.Is(err, hub.ErrChecksum) || !strings.Contains(err.Error(), "config.json") || !strings.Contains(err.Error(), "git sha1") {
		t.Errorf("corrupt config.json: err = %v", err)
	}
}

func TestPullRetries5xx(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := synthFiles(t)
	repo := s.AddRepo("Qwen/Tiny", files)
	repo.Fail["model.safetensors"] = 2
	if _, err := hub.Pull(context.Background(), "Qwen/Tiny", pullOpts(t, s, nil)); err != nil {
		t.Fatal(err)
	}
	// More failures than retries: the 503 is reported, naming the file.
	repo2 := s.AddRepo("Qwen/Flaky", files)
	repo2.Fail["model.safetensors"] = 10
	_, err := hub.Pull(context.Background(), "Qwen/Flaky", pullOpts(t, s, nil))
	var he *hub.HTTPError
	if !errors.As(err, &he) || he.Status != 503 || he.File != "model.safetensors" {
		t.Errorf("err = %v, want HTTP 503 on model.safetensors", err)
	}
	n := 0
	for _, r := range s.Requests() {
		if r.Server == "cdn" && r.Method == "GET" && r.Path == "model.safetensors" {
			n++
		}
	}
	if want := 3 + 4; n != want { // 2 failures + 1 success, then 1 try + 3 retries
		t.Errorf("%d CDN GETs, want %d", n, want)
	}
}

func TestPullHTTPErrors(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := synthFiles(t)
	gated := s.AddRepo("Qwen/Gated", files)
	gated.Token = "hf_secret"
	missing := s.AddRepo("Qwen/Missing", files)
	missing.Missing["generation_config.json"] = true
	for _, c := range []struct {
		spec, token string
		status      int
		want        []string
	}{
		{"Qwen/Nope", "", 404, []string{"repo Qwen/Nope", "404", "no such repo or revision"}},
		{"Qwen/Gated@v9", "hf_secret", 404, []string{"repo Qwen/Gated", "404", "Invalid rev id: v9"}},
		{"Qwen/Gated", "", 401, []string{"repo Qwen/Gated", "401", "HF_TOKEN", "restricted"}},
		{"Qwen/Gated", "hf_wrong", 401, []string{"HF_TOKEN"}},
		{"Qwen/Missing", "", 404, []string{"repo Qwen/Missing file generation_config.json", "404", "not in this revision"}},
	} {
		o := pullOpts(t, s, nil)
		o.Token = c.token
		_, err := hub.Pull(context.Background(), c.spec, o)
		var he *hub.HTTPError
		if !errors.As(err, &he) || he.Status != c.status {
			t.Errorf("%s: err = %v, want HTTP %d", c.spec, err, c.status)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.spec, err, w)
			}
		}
	}
	o := pullOpts(t, s, nil)
	o.Token = "hf_secret"
	if _, err := hub.Pull(context.Background(), "Qwen/Gated", o); err != nil {
		t.Errorf("gated repo with its token: %v", err)
	}
	// The token goes to the hub, not to the CDN the LFS files redirect to.
	for _, r := range s.Requests() {
		if r.Server == "cdn" && r.Auth {
			t.Errorf("the token was sent to the CDN for %s", r.Path)
		}
	}
}

func TestPullShardedAndRevision(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := synthFiles(t)
	// Re-store the weights as two F32 shards and an index.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.json"), files["config.json"], 0o644)
	os.WriteFile(filepath.Join(dir, "model.safetensors"), files["model.safetensors"], 0o644)
	src, err := predictor.OpenModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := src.Tensors()
	wm := map[string]string{}
	for k, part := range [][]safetensors.TensorInfo{ts[:len(ts)/2], ts[len(ts)/2:]} {
		name := []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}[k]
		var wt []safetensors.WriteTensor
		for _, ti := range part {
			v := make([]float32, ti.Elems())
			if err := src.ReadF32(ti.Name, v); err != nil {
				t.Fatal(err)
			}
			b := make([]byte, 4*len(v))
			for i, x := range v {
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
			}
			wt = append(wt, safetensors.WriteTensor{Name: ti.Name, DType: safetensors.F32, Shape: ti.Shape, Data: b})
			wm[ti.Name] = name
		}
		p := filepath.Join(dir, name)
		if err := safetensors.Write(p, wt, nil); err != nil {
			t.Fatal(err)
		}
		files[name], _ = os.ReadFile(p)
	}
	src.Close()
	delete(files, "model.safetensors")
	files["model.safetensors.index.json"], _ = json.Marshal(map[string]any{"metadata": map[string]any{}, "weight_map": wm})
	repo := s.AddRepo("Qwen/Sharded", files)
	o := pullOpts(t, s, nil)
	spec := "Qwen/Sharded@" + repo.Commit
	res, err := hub.Pull(context.Background(), spec, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", "model.safetensors.index.json"} {
		if b, err := os.ReadFile(filepath.Join(res.Dir, p)); err != nil || !bytes.Equal(b, files[p]) {
			t.Errorf("%s differs from the hub's (%v)", p, err)
		}
	}
	// Pulled by commit: no ref is written, and the commit resolves.
	if _, err := os.Stat(filepath.Join(o.CacheDir, "models--Qwen--Sharded", "refs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refs written for a commit pull: %v", err)
	}
	dir2, ok, err := (hub.Cache{Dir: o.CacheDir}).Resolve(spec)
	if err != nil || !ok {
		t.Fatalf("Resolve(%s) = %v, %v", spec, ok, err)
	}
	src2, err := predictor.OpenModel(dir2)
	if err != nil {
		t.Fatal(err)
	}
	defer src2.Close()
	if err := predictor.CheckTensors(src2); err != nil {
		t.Error(err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
