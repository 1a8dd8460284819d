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

	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/hub/hubtest"
)

// TestPullWaitsForTheBlobLock: while another process holds the
// huggingface_hub lock of the weights' blob, a pull waits and does not fetch
// it (the test cancels the pull once it reports waiting); once the lock is
// released, the pull completes.
func TestPullWaitsForTheBlobLock(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := synthFiles(t)
	s.AddRepo("Qwen/Tiny", files)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOn{substr: "waiting for another download of this file", cancel: cancel}
	o := pullOpts(t, s, &out.buf)
	o.Progress = out
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
	_, err = hub.Pull(ctx, "Qwen/Tiny", o)
	if !errors.Is(err, context.Canceled) || !strings.Contains(out.buf.String(), "waiting for another download of this file") {
		t.Fatalf("pull under a held lock: err = %v\n%s", err, out.buf.String())
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

// cancelOn is a progress writer that calls cancel once a write contains
// substr.
type cancelOn struct {
	buf    bytes.Buffer
	substr string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.substr) {
		c.cancel()
	}
	return c.buf.Write(p)
}
