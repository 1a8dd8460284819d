package deploy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWeightsBytesInFollowsSymlinks: a Hugging Face cache snapshot holds
// symlinks to blobs; the weight bytes are the blobs' sizes (1000 + 24),
// not the links' (the speech_tokenizer's weights count too).
func TestWeightsBytesInFollowsSymlinks(t *testing.T) {
	root := t.TempDir()
	blobs, snap := filepath.Join(root, "blobs"), filepath.Join(root, "snapshots", "c")
	os.MkdirAll(blobs, 0o755)
	os.MkdirAll(filepath.Join(snap, "speech_tokenizer"), 0o755)
	os.WriteFile(filepath.Join(blobs, "a"), make([]byte, 1000), 0o644)
	os.WriteFile(filepath.Join(blobs, "b"), make([]byte, 24), 0o644)
	os.WriteFile(filepath.Join(blobs, "c"), make([]byte, 7), 0o644)
	for link, target := range map[string]string{
		"model.safetensors":                  "../../blobs/a",
		"speech_tokenizer/model.safetensors": "../../../blobs/b",
		"config.json":                        "../../blobs/c",
	} {
		if err := os.Symlink(target, filepath.Join(snap, link)); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := WeightsBytesIn(snap); err != nil || n != 1024 {
		t.Errorf("WeightsBytesIn = %d, %v; want 1024", n, err)
	}
}
