package simd

import "fmt"

// CopyKV makes window KV state dst an exact copy of src (the same
// geometry): a stream that continues from another's snapshot. It
// implements codec.KVCopier.
func (b *Backend) CopyKV(dst, src int32) error {
	od, err := b.get(dst, kindWindowKV, "window kv")
	if err != nil {
		return err
	}
	os, err := b.get(src, kindWindowKV, "window kv")
	if err != nil {
		return err
	}
	d, s := od.win, os.win
	if d.layers != s.layers || d.heads != s.heads || d.headDim != s.headDim || d.window != s.window {
		return fmt.Errorf("simd: backend: copy window kv %d×%d×%d×%d into %d×%d×%d×%d: geometries differ",
			s.layers, s.heads, s.headDim, s.window, d.layers, d.heads, d.headDim, d.window)
	}
	for l := range s.k {
		copy(d.k[l], s.k[l])
		copy(d.v[l], s.v[l])
	}
	copy(d.next, s.next)
	return nil
}
