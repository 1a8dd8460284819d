package wcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testKey is the key of the files these tests write.
var testKey = Key{"model=synth:tiny@1", "precision=int8", "layout=test-1"}

// writeTest writes a file of two objects at path and returns what it wrote.
func writeTest(t testing.TB, path string, key Key) ([]float32, []byte) {
	t.Helper()
	f32 := []float32{1, -2.5, 3e-7, 4}
	u8 := make([]byte, 1000)
	for i := range u8 {
		u8[i] = byte(i * 7)
	}
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	a := NewObject("vector")
	a.PutInt("cols", len(f32))
	a.PutF32("data", f32)
	b := NewObject("matrix")
	b.PutInt("rows", 10)
	b.PutStr("precision", "int8")
	b.PutBytes("q8", u8)
	b.PutU16("bf", []uint16{1, 2, 3})
	for _, o := range []*Object{a, b} {
		if err := w.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.SetMeta("guards", map[string][]int{"talker": {1, 2}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(key, "test file", "test-1"); err != nil {
		t.Fatal(err)
	}
	return f32, u8
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.owc")
	f32, u8 := writeTest(t, path, testKey)
	f, err := Open(path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Objects) != 2 || f.About != "test file" || f.Layout != "test-1" {
		t.Fatalf("manifest %+v", f.Manifest)
	}
	v, err := f.Objects[0].F32s("data")
	if err != nil || fmt.Sprint(v) != fmt.Sprint(f32) {
		t.Fatalf("data = %v, %v; want %v", v, err, f32)
	}
	q, err := f.Objects[1].Bytes("q8")
	if err != nil || string(q) != string(u8) {
		t.Fatalf("q8 differs (%v)", err)
	}
	bf, err := f.Objects[1].U16s("bf")
	if err != nil || fmt.Sprint(bf) != "[1 2 3]" {
		t.Fatalf("bf = %v, %v", bf, err)
	}
	for _, o := range f.Objects {
		for _, b := range o.Blobs {
			if b.Off%Align != 0 {
				t.Errorf("blob %s at %d: not aligned to %d", b.Name, b.Off, Align)
			}
		}
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("file mode %v (%v), want 0644", st.Mode(), err)
	}
	if n, err := f.Objects[1].Int("rows"); n != 10 || err != nil {
		t.Errorf("rows = %d, %v", n, err)
	}
	if _, err := f.Objects[1].Int("cols"); !errors.Is(err, ErrMissing) {
		t.Errorf("missing int: %v, want ErrMissing", err)
	}
	if _, err := f.Objects[1].F32s("q8"); !errors.Is(err, ErrDamaged) {
		t.Errorf("q8 as f32: %v, want a type error", err)
	}
	if string(f.Meta["guards"]) != `{"talker":[1,2]}` {
		t.Errorf("meta %s", f.Meta["guards"])
	}
}

// damage rewrites the file at path with edit applied.
func damage(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRefusals(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		name string
		edit func([]byte) []byte
		key  Key
		want error
		says string
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)-10] }, testKey, ErrTruncated, "header says"},
		{"truncated to the header", func(b []byte) []byte { return b[:50] }, testKey, ErrTruncated, "shorter than"},
		{"empty", func(b []byte) []byte { return nil }, testKey, ErrTruncated, "empty"},
		{"grown", func(b []byte) []byte { return append(b, 0) }, testKey, ErrDamaged, "header says"},
		{"payload byte", func(b []byte) []byte { b[headerSize+Align+3] ^= 0x10; return b }, testKey, ErrDamaged, "blob q8"},
		{"header byte", func(b []byte) []byte { b[20] ^= 1; return b }, testKey, ErrDamaged, "header checksum"},
		{"manifest byte", func(b []byte) []byte { b[len(b)-5] ^= 1; return b }, testKey, ErrDamaged, "manifest checksum"},
		{"foreign", func(b []byte) []byte { copy(b, "PK\x03\x04 a zip"); return b }, testKey, ErrForeign, "magic"},
		{"version", func(b []byte) []byte {
			le.PutUint32(b[8:], Version+1)
			le.PutUint32(b[76:], checksum(b[:76]))
			return b
		}, testKey, ErrVersion, fmt.Sprintf("version %d", Version+1)},
		{"other key", func(b []byte) []byte { return b }, Key{"model=synth:tiny@2", "precision=int8", "layout=test-1"}, ErrStale, "model=synth:tiny@1"},
		{"other layout", func(b []byte) []byte { return b }, Key{"model=synth:tiny@1", "precision=int8", "layout=test-2"}, ErrStale, "layout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.owc")
			writeTest(t, path, testKey)
			damage(t, path, c.edit)
			f, err := Open(path, c.key)
			if err == nil {
				f.Close()
				t.Fatalf("Open of a %s file succeeded", c.name)
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Open: %v; want %v saying %q and naming the file", err, c.want, c.says)
			}
			t.Logf("refused: %v", err)
		})
	}
}

func TestInspect(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.owc")
	writeTest(t, path, testKey)
	m, err := Inspect(path, false)
	if err != nil || m.About != "test file" || len(m.Key) != 3 {
		t.Fatalf("Inspect: %+v, %v", m, err)
	}
	damage(t, path, func(b []byte) []byte { b[headerSize+Align+3] ^= 1; return b })
	if _, err := Inspect(path, false); err != nil {
		t.Fatalf("Inspect without verify read a blob: %v", err)
	}
	if m, err := Inspect(path, true); !errors.Is(err, ErrDamaged) || m == nil {
		t.Fatalf("Inspect verify: %v, %v; want the manifest and ErrDamaged", m, err)
	}
}

// TestConcurrentWriters writes one file from several goroutines at once
// (as concurrent first starts do): every rename leaves a whole file, and no
// temporary file is left.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.owc")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				writeTest(t, path, testKey)
				if f, err := Open(path, testKey); err != nil {
					t.Error(err)
				} else {
					f.Close()
				}
			}
		}()
	}
	wg.Wait()
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("%d files left in the directory, want 1", len(ents))
	}
}

func TestReadOnlyDir(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if _, err := Create(filepath.Join(dir, "x.owc")); err == nil || !errors.Is(err, os.ErrPermission) {
		t.Fatalf("Create in a read-only directory: %v, want a permission error", err)
	}
}
