package hub_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/hub/hubtest"
)

// ExamplePull pulls a two-file repo from a fake hub into a fresh cache, then
// resolves it by name as --model does. The blob names are what
// `git hash-object` (config.json) and `sha256sum` (the LFS file) print for
// the same bytes.
func ExamplePull() {
	s := hubtest.NewServer()
	defer s.Close()
	s.AddRepo("Qwen/Demo", map[string][]byte{
		"config.json":       []byte(`{"model_type": "qwen3_tts"}`),
		"model.safetensors": []byte("8 bytes!"),
		"README.md":         []byte("# skipped"),
	})
	cache, _ := os.MkdirTemp("", "hf")
	defer os.RemoveAll(cache)

	res, err := hub.Pull(context.Background(), "Qwen/Demo", hub.Options{Endpoint: s.URL, CacheDir: cache})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Files {
		link, _ := os.Readlink(filepath.Join(res.Dir, f.Path))
		fmt.Printf("%s (%d B, lfs %v) -> %s…\n", f.Path, f.Size, f.LFS, link[:24])
	}
	dir, ok, err := hub.Cache{Dir: cache}.Resolve("Qwen/Demo")
	fmt.Println(ok, err, strings.TrimPrefix(dir, cache))
	// Output:
	// config.json (27 B, lfs false) -> ../../blobs/3c8b26d92c4d…
	// model.safetensors (8 B, lfs true) -> ../../blobs/63e26b011d7d…
	// true <nil> /models--Qwen--Demo/snapshots/10f7167f2a4dea3953abefe1c40818dc89740f08
}
