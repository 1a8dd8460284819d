package wcache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen damages a valid file (a byte flipped, the file cut or grown)
// and checks the property the cache rests on: Open either refuses the file
// or returns exactly the blobs that were written, never other bytes.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good.owc")
	f32, u8 := writeTest(f, good, testKey)
	orig, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(0), byte(0), int32(0))
	f.Add(uint32(20), byte(1), int32(0))
	f.Add(uint32(headerSize+Align+3), byte(0x80), int32(0))
	f.Add(uint32(len(orig)-4), byte(0x20), int32(0))
	f.Add(uint32(0), byte(0), int32(-100))
	f.Add(uint32(0), byte(0), int32(7))
	f.Fuzz(func(t *testing.T, pos uint32, flip byte, resize int32) {
		b := bytes.Clone(orig)
		if len(b) > 0 {
			b[int(pos)%len(b)] ^= flip
		}
		switch {
		case resize < 0:
			b = b[:max(0, len(b)+int(resize)%len(b))]
		case resize > 0:
			b = append(b, make([]byte, resize%4096)...)
		}
		path := filepath.Join(t.TempDir(), "x.owc")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := Open(path, testKey)
		if err != nil {
			return
		}
		defer file.Close()
		v, err := file.Objects[0].F32s("data")
		if err != nil || !bytes.Equal(f32Raw(v), f32Raw(f32)) {
			t.Fatalf("Open accepted a damaged file (flip %#x at %d, resize %d) with other data: %v", flip, pos, resize, v)
		}
		q, err := file.Objects[1].Bytes("q8")
		if err != nil || !bytes.Equal(q, u8) {
			t.Fatalf("Open accepted a damaged file (flip %#x at %d, resize %d) with another q8 blob", flip, pos, resize)
		}
	})
}

// f32Raw returns the bytes of v.
func f32Raw(v []float32) []byte {
	o := NewObject("x")
	o.PutF32("v", v)
	return o.data[0]
}
