//go:build unix

package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock(2) on path (created if needed), the
// lock huggingface_hub's filelock takes on the same .locks/ file, so omni
// and Python never write one blob at once. It polls every 100 ms until ctx
// ends, calling wait once if it has to wait.
func lockFile(ctx context.Context, path string, wait func()) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("hub: lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("hub: lock: %w", err)
	}
	fd := int(f.Fd())
	for waited := false; ; waited = true {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(fd, syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("hub: lock %s: %w", path, err)
		}
		if !waited && wait != nil {
			wait()
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("hub: waiting for the lock %s (another download of this file): %w", path, ctx.Err())
		case <-t.C:
		}
	}
}
