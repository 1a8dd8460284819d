package hub_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/hub"
)

func TestParseRepo(t *testing.T) {
	for _, c := range []struct {
		spec, id, rev, err string
	}{
		{"Qwen/Qwen3-TTS-12Hz-0.6B-CustomVoice", "Qwen/Qwen3-TTS-12Hz-0.6B-CustomVoice", "main", ""},
		{"Qwen/X@v1.0", "Qwen/X", "v1.0", ""},
		{"Qwen/X@refs/pr/1", "Qwen/X", "refs/pr/1", ""},
		{"Qwen/X@", "", "", "empty revision"},
		{"Qwen", "", "", "ORG/NAME"},
		{"a/b/c", "", "", "ORG/NAME"},
		{"../x", "", "", "ORG/NAME"},
		{"Qwen/a--b", "", "", "ORG/NAME"},
		{"Qwen/X@../../etc", "", "", "bad revision"},
	} {
		r, err := hub.ParseRepo(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), c.spec) {
				t.Errorf("ParseRepo(%q) err = %v, want one naming the spec and saying %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || r.ID != c.id || r.Revision != c.rev {
			t.Errorf("ParseRepo(%q) = %+v, %v; want %s @ %s", c.spec, r, err, c.id, c.rev)
		}
	}
	if f := (hub.Repo{ID: "Qwen/Qwen3-TTS-12Hz-0.6B-Base"}).Folder(); f != "models--Qwen--Qwen3-TTS-12Hz-0.6B-Base" {
		t.Errorf("Folder = %s", f)
	}
}

// fakeSnapshot lays out a cache by hand, as huggingface_hub would have.
func fakeSnapshot(t *testing.T, cache, folder, ref, commit string) string {
	t.Helper()
	snap := filepath.Join(cache, folder, "snapshots", commit)
	os.MkdirAll(snap, 0o755)
	os.WriteFile(filepath.Join(snap, "config.json"), []byte("{}"), 0o644)
	if ref != "" {
		os.MkdirAll(filepath.Join(cache, folder, "refs"), 0o755)
		os.WriteFile(filepath.Join(cache, folder, "refs", ref), []byte(commit+"\n"), 0o644)
	}
	return snap
}

func TestResolve(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HUGGINGFACE_HUB_CACHE", "")
	t.Setenv("HF_HOME", filepath.Dir(cache)+"/"+filepath.Base(cache)+"-home")
	t.Setenv("HF_HUB_CACHE", cache) // HF_HUB_CACHE wins over HF_HOME
	commit := strings.Repeat("ab", 20)
	snap := fakeSnapshot(t, cache, "models--Qwen--Voice", "main", commit)
	local := t.TempDir()
	for _, c := range []struct {
		spec, dir string
		ok        bool
		err       string
	}{
		{local, local, false, ""},
		{"./no/such/dir", "./no/such/dir", false, ""},
		{"Qwen/Voice", snap, true, ""},
		{"Qwen/Voice@" + commit, snap, true, ""},
		{"Qwen/Voice@v2", "", false, "run `omni pull Qwen/Voice@v2`"},
		{"Qwen/Other", "", false, "run `omni pull Qwen/Other`"},
	} {
		dir, ok, err := hub.Resolve(c.spec)
		if c.err != "" {
			if !errors.Is(err, hub.ErrNotCached) || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), cache) {
				t.Errorf("Resolve(%q) err = %v, want ErrNotCached naming %s and saying %q", c.spec, err, cache, c.err)
			}
			continue
		}
		if err != nil || dir != c.dir || ok != c.ok {
			t.Errorf("Resolve(%q) = %q, %v, %v; want %q, %v", c.spec, dir, ok, err, c.dir, c.ok)
		}
	}
	// A ref that holds no commit hash is an error, not a silent miss.
	os.WriteFile(filepath.Join(cache, "models--Qwen--Voice", "refs", "main"), []byte("garbage"), 0o644)
	if _, _, err := hub.Resolve("Qwen/Voice"); err == nil || !strings.Contains(err.Error(), "not a commit hash") {
		t.Errorf("bad ref: err = %v", err)
	}
}

func TestCacheDir(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HF_HUB_CACHE": "/c/hub", "HF_HOME": "/h"}, "/c/hub"},
		{map[string]string{"HF_HOME": "/h", "XDG_CACHE_HOME": "/x"}, "/h/hub"},
		{map[string]string{"XDG_CACHE_HOME": "/x"}, "/x/huggingface/hub"},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.cache/huggingface/hub"},
	} {
		for _, v := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"} {
			t.Setenv(v, c.env[v])
		}
		if h, ok := c.env["HOME"]; ok {
			t.Setenv("HOME", h)
		}
		if got, err := hub.CacheDir(); err != nil || got != c.want {
			t.Errorf("CacheDir with %v = %q, %v; want %q", c.env, got, err, c.want)
		}
	}
}
