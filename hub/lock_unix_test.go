//go:build unix

package hub_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/hub/hubtest"
)

// TestPullWaitsForTheBlobLock: while another process holds the
// huggingface_hub lock of the weights' blob, a pull does not write it (here
// it gives up when its context ends); once released, the pull completes.
func TestPullWaitsForTheBlobLock(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := synthFiles(t)
	s.AddRepo("Qwen/Tiny", files)
	var out bytes.Buffer
	o := pullOpts(t, s, &out)
	lock := filepath.Join(o.CacheDir, ".locks", "models--Qwen--Tiny", hubtest.SHA256(files["model.safetensors"])+".lock")
	os.MkdirAll(filepath.Dir(lock), 0o755)
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("flock: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = hub.Pull(ctx, "Qwen/Tiny", o)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(out.String(), "waiting for another download of this file") {
		t.Fatalf("pull under a held lock: err = %v\n%s", err, out.String())
	}
	for _, r := range s.Requests() {
		if r.Server == "cdn" && r.Path == "model.safetensors" {
			t.Errorf("the weights were fetched while their lock was held")
		}
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if _, err := hub.Pull(context.Background(), "Qwen/Tiny", o); err != nil {
		t.Fatalf("pull after the lock is released: %v", err)
	}
}
