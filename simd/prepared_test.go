package simd

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/wcache"
)

// randF32 returns n values in [-1, 1).
func randF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 2*r.Float32() - 1
	}
	return v
}

// prepareAll makes one object of every cached kind (and a KV cache, which
// is not cached) on b and returns their handles.
func prepareAll(t *testing.T, b *Backend) []int32 {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	var hs []int32
	add := func(h int32, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	add(b.NewMatrix(40, 96, randF32(r, 40*96), nil, "int8"))
	add(b.NewMatrix(17, 64, randF32(r, 17*64), randF32(r, 17), "fp32"))
	add(b.NewMatrix(16, 32, randF32(r, 16*32), nil, "int8-pertensor"))
	add(b.NewVector(randF32(r, 64)))
	tb, err := b.NewTable(8, 16, nil)
	add(tb, err)
	if err := b.WriteTable(tb, 2, randF32(r, 3*16)); err != nil {
		t.Fatal(err)
	}
	add(b.NewRope(16, 50, 10000))
	if _, err := b.NewKVCache(2, 2, 16, 8); err != nil {
		t.Fatal(err)
	}
	add(b.NewConv(32, 32, 3, 2, randF32(r, 32*32*3), randF32(r, 32), "int8"))
	add(b.NewConv(24, 8, 7, 1, randF32(r, 24*8*7), nil, "bf16"))
	add(b.NewConv(20, 8, 1, 1, randF32(r, 20*8), nil, "fp32"))
	add(b.NewConvTranspose(16, 8, 4, 2, randF32(r, 16*8*4), randF32(r, 8), "fp32"))
	add(b.NewDepthwise(16, 7, randF32(r, 16*7), randF32(r, 16)))
	add(b.NewSnake(16, randF32(r, 16), randF32(r, 16)))
	add(b.NewMatrix(20, 64, randF32(r, 20*64), nil, "int4"))
	return hs
}

// TestPreparedReplay records every cached kind, writes the cache file,
// replays it on a fresh backend and checks that every replayed object is
// byte for byte the one prepared cold, and that a product on it is equal.
func TestPreparedReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.owc")
	key := wcache.Key{"test=1", "layout=" + CacheLayout}
	cold := NewBackend(1)
	defer cold.Close()
	cold.Record()
	hs := prepareAll(t, cold)
	w, err := wcache.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := cold.SaveRecording(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(key, "test", CacheLayout); err != nil {
		t.Fatal(err)
	}
	f, err := wcache.Open(path, key)
	if err != nil {
		t.Fatal(err)
	}
	warm := NewBackend(1)
	defer warm.Close()
	if err := warm.Replay(f); err != nil {
		t.Fatal(err)
	}
	hw := prepareAll(t, warm)
	if err := warm.EndReplay(); err != nil {
		t.Fatal(err)
	}
	for i := range hs {
		a, b := &cold.objs[hs[i]], &warm.objs[hw[i]]
		ea, err := encodeObject(a, "")
		if err != nil {
			t.Fatal(err)
		}
		eb, _ := encodeObject(b, "")
		if ea.Kind != eb.Kind || len(ea.Blobs) != len(eb.Blobs) {
			t.Fatalf("object %d: %s with %d blobs replayed as %s with %d", i, ea.Kind, len(ea.Blobs), eb.Kind, len(eb.Blobs))
		}
		if !b.mapped {
			t.Errorf("object %d (%s) was prepared again, not replayed", i, a.kind)
		}
		if ca, cb := cold.mustBytes(t, hs[i]), warm.mustBytes(t, hw[i]); ca != cb {
			t.Errorf("object %d: Bytes %d cold, %d replayed", i, ca, cb)
		}
		for j := range ea.Blobs {
			if ea.Blobs[j].Name != eb.Blobs[j].Name || !bytes.Equal(blobBytes(t, ea, j), blobBytes(t, eb, j)) {
				t.Errorf("object %d (%s): blob %s differs after replay", i, ea.Kind, ea.Blobs[j].Name)
			}
		}
	}
	x := randF32(rand.New(rand.NewPCG(3, 4)), 2*96)
	y0, y1 := make([]float32, 2*40), make([]float32, 2*40)
	if err := cold.MatMul(y0, x, 2, hs[0]); err != nil {
		t.Fatal(err)
	}
	if err := warm.MatMul(y1, x, 2, hw[0]); err != nil {
		t.Fatal(err)
	}
	for i := range y0 {
		if y0[i] != y1[i] {
			t.Fatalf("MatMul row %d col %d = %v replayed, %v cold", i/40, i%40, y1[i], y0[i])
		}
	}
	if err := warm.WriteTable(hw[4], 0, make([]float32, 16)); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("WriteTable into a mapped table: %v, want a refusal", err)
	}
}

func (b *Backend) mustBytes(t *testing.T, h int32) int64 {
	n, err := b.Bytes(h)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// blobBytes returns blob j's pending bytes of a freshly encoded object.
func blobBytes(t *testing.T, o *wcache.Object, j int) []byte {
	t.Helper()
	b, err := o.Bytes(o.Blobs[j].Name)
	if err == nil {
		return b
	}
	if v, err := o.F32s(o.Blobs[j].Name); err == nil {
		return f32Bytes(v)
	}
	v, err := o.U16s(o.Blobs[j].Name)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 2*len(v))
	for i, u := range v {
		out[2*i], out[2*i+1] = byte(u), byte(u>>8)
	}
	return out
}

func f32Bytes(v []float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, f := range v {
		u := math.Float32bits(f)
		out = append(out, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return out
}

// TestPreparedReplayMismatch: a replay whose calls differ from the
// recorded ones fails naming both, and unclaimed objects are reported.
func TestPreparedReplayMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.owc")
	key := wcache.Key{"test=2"}
	cold := NewBackend(1)
	defer cold.Close()
	cold.Record()
	if _, err := cold.NewVector(make([]float32, 8)); err != nil {
		t.Fatal(err)
	}
	if _, err := cold.NewVector(make([]float32, 8)); err != nil {
		t.Fatal(err)
	}
	w, _ := wcache.Create(path)
	if err := cold.SaveRecording(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(key, "test", CacheLayout); err != nil {
		t.Fatal(err)
	}
	f, err := wcache.Open(path, key)
	if err != nil {
		t.Fatal(err)
	}
	warm := NewBackend(1)
	defer warm.Close()
	warm.Replay(f)
	if _, err := warm.NewVector(make([]float32, 9)); err == nil || !strings.Contains(err.Error(), `"vector 8"`) {
		t.Fatalf("replay of a vector of 9 from one of 8: %v", err)
	}
	if _, err := warm.NewVector(make([]float32, 8)); err != nil {
		t.Fatal(err)
	}
	if err := warm.EndReplay(); err == nil || !strings.Contains(err.Error(), "claimed 1 of the 2") {
		t.Fatalf("EndReplay with an object left: %v", err)
	}
}
