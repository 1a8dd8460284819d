package wcache

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// writeBig writes a file of one blob of n pseudo-random bytes (an LCG, so
// the expected bytes are known without the file) and returns them.
func writeBig(t *testing.T, path string, n int) []byte {
	t.Helper()
	want := make([]byte, n)
	x := uint32(12345)
	for i := range want {
		x = x*1664525 + 1013904223
		want[i] = byte(x >> 24)
	}
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	o := NewObject("matrix")
	o.PutBytes("q8", want)
	if err := w.Add(o); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(testKey, "big", "test-1"); err != nil {
		t.Fatal(err)
	}
	return want
}

// mappingOf returns the /proc/self/maps line of the mapping holding p
// ("" where there is no such file).
func mappingOf(t *testing.T, p uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var lo, hi uintptr
		if _, err := fmt.Sscanf(sc.Text(), "%x-%x", &lo, &hi); err == nil && lo <= p && p < hi {
			return sc.Text()
		}
	}
	return ""
}

// TestPrivatize: the blob keeps its address and bytes (checked against
// the generator, not the file) while a reader sums it concurrently, every
// chunk ends in private read-only memory, and the count covers the file.
func TestPrivatize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.owc")
	n := PrivateChunk + PrivateChunk/3 + 4097 // two chunks, the second ragged
	want := writeBig(t, path, n)
	var wantSum uint64
	for _, b := range want {
		wantSum += uint64(b)
	}
	f, err := Open(path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q, err := f.Objects[0].Bytes("q8")
	if err != nil {
		t.Fatal(err)
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(q)))
	if runtime.GOOS == "linux" && !strings.Contains(mappingOf(t, addr), "big.owc") {
		t.Fatalf("before: the blob is not in the file's mapping: %q", mappingOf(t, addr))
	}

	var stop atomic.Bool
	var bad atomic.Uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a kernel reading the weights meanwhile
		defer wg.Done()
		for !stop.Load() {
			var s uint64
			for i := 0; i < len(q); i += 61 {
				s += uint64(q[i])
			}
			var ref uint64
			for i := 0; i < len(want); i += 61 {
				ref += uint64(want[i])
			}
			if s != ref {
				bad.Store(s)
			}
		}
	}()
	got, err := f.Privatize(context.Background())
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if s := bad.Load(); s != 0 {
		t.Fatalf("a concurrent reader summed %d while the chunks moved", s)
	}
	if runtime.GOOS == "linux" && got != f.Size() {
		t.Fatalf("privatized %d of %d bytes", got, f.Size())
	}
	if q2, _ := f.Objects[0].Bytes("q8"); uintptr(unsafe.Pointer(unsafe.SliceData(q2))) != addr {
		t.Fatal("the blob moved")
	}
	var sum uint64
	for i := range q {
		if q[i] != want[i] {
			t.Fatalf("byte %d = %d after, want %d", i, q[i], want[i])
		}
		sum += uint64(q[i])
	}
	if sum != wantSum {
		t.Fatalf("sum %d, want %d", sum, wantSum)
	}
	if runtime.GOOS == "linux" {
		for _, p := range []uintptr{addr, addr + uintptr(PrivateChunk), addr + uintptr(len(q)) - 1} {
			m := mappingOf(t, p)
			if strings.Contains(m, "big.owc") || !strings.Contains(m, " r--p ") {
				t.Errorf("after: byte at %#x is in %q, want a private read-only anonymous mapping", p, m)
			}
		}
	}
	if again, err := f.Privatize(context.Background()); err != nil || again != got {
		t.Errorf("second Privatize: %d, %v; want %d, nil", again, err, got)
	}
}

// TestPrivatizeStops: a done context stops before the first chunk, and a
// closed file has nothing left to privatize.
func TestPrivatizeStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.owc")
	writeBig(t, path, PrivateChunk+1)
	f, err := Open(path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n, err := f.Privatize(ctx); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %d, %v; want 0, context.Canceled", n, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := f.Privatize(context.Background()); n != 0 || err != nil {
		t.Errorf("closed: %d, %v; want 0, nil", n, err)
	}
}
