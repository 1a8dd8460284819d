package host

import (
	"context"
	"math"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// nativeCodec decodes codes on the synthetic codec natively (simd backend,
// threads threads) in the given pushes.
func nativeCodec(t *testing.T, cfg codec.Config, seed uint64, prec string, codes [][codec.Codebooks]int32, pushes []int, threads int) []float32 {
	t.Helper()
	nb := simd.NewBackend(threads)
	defer nb.Close()
	m, err := codec.NewSynthetic(cfg, seed, nb, prec)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spf := m.SamplesPerFrame()
	pcm := make([]float32, len(codes)*spf)
	at := 0
	for _, p := range pushes {
		if err := s.Decode(codes[at:at+p], pcm[at*spf:(at+p)*spf]); err != nil {
			t.Fatal(err)
		}
		at += p
	}
	return pcm
}

// TestCodecWASIParity decodes the synthetic tiny codec natively and inside
// the WASI guest (the codec graph in wasm, simd's kernels as host
// functions, the samples handed back through abi.PCM) and requires the
// same bits, for one call and for a streamed split, in fp32, int8 and
// mixed. It needs the embedded guest built from this tree (`go generate
// ./host/...`).
func TestCodecWASIParity(t *testing.T) {
	cfg := codec.TinyConfig()
	const seed, frames, threads = 11, 9, 2
	codes := make([][codec.Codebooks]int32, frames)
	r := uint32(12345)
	for i := range codes {
		for k := range codes[i] {
			r = r*1664525 + 1013904223
			codes[i][k] = int32(r>>8) % int32(cfg.CodebookSize)
		}
	}
	nb := simd.NewBackend(threads)
	defer nb.Close()
	st := newHostState(nb, nil, 1<<30)
	v, err := newVM(context.Background(), st, vmConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close(context.Background())
	in, err := v.newInstance(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.discard()
	cfgJSON, err := cfg.JSON()
	if err != nil {
		t.Fatal(err)
	}
	one := []int{frames}
	split := []int{2, 1, 4, 2} // crosses the window of 5
	for _, prec := range []string{"fp32", "int8", "mixed"} {
		want := nativeCodec(t, cfg, seed, prec, codes, one, threads)
		if wantSplit := nativeCodec(t, cfg, seed, prec, codes, split, threads); !sameBits(want, wantSplit) {
			t.Fatalf("%s: native split decode differs from one call (a codec bug, not the boundary's)", prec)
		}
		var energy float64
		for _, v := range want {
			energy += float64(v) * float64(v)
		}
		if energy == 0 {
			t.Fatalf("%s: native decode is silent; the comparison would prove nothing", prec)
		}
		for _, pushes := range [][]int{one, split} {
			got, err := in.codecDecode(&abi.CodecSpec{Config: cfgJSON, Seed: seed, Precision: prec, Codes: codes, Pushes: pushes})
			if err != nil {
				t.Fatalf("%s %v: %v", prec, pushes, err)
			}
			if n := st.table.count(in.owner); n != 0 || st.used != 0 {
				t.Errorf("%s %v: the guest left %d handles, %d bytes charged", prec, pushes, n, st.used)
			}
			if len(got) != len(want) {
				t.Fatalf("%s %v: guest gave %d samples, native %d", prec, pushes, len(got), len(want))
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %v: sample %d (frame %d): guest %v, native %v", prec, pushes, i, i/cfg.SamplesPerFrame(), got[i], want[i])
				}
			}
		}
	}
}

// sameBits reports whether a and b hold the same float32 bit patterns.
func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestCodecWASIReplay loads the synthetic tiny codec on the host through
// the recorder (the weights host-owned, as an engine's codec stage would
// be), decodes with it natively through the recorder's ops, then has the
// guest replay that load (codec.Replay: no weight enters guest memory) and
// decode in a streamed split: both must give the bits of a plain native
// decode, and the guest must leave only the host's handles behind.
func TestCodecWASIReplay(t *testing.T) {
	cfg := codec.TinyConfig()
	const seed, frames, threads = 5, 8, 2
	codes := make([][codec.Codebooks]int32, frames)
	for i := range codes {
		for k := range codes[i] {
			codes[i][k] = int32((i*7 + k*5 + 3) % cfg.CodebookSize)
		}
	}
	split := []int{3, 5}
	nb := simd.NewBackend(threads)
	defer nb.Close()
	st := newHostState(nb, nil, 1<<30)
	v, err := newVM(context.Background(), st, vmConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close(context.Background())
	in, err := v.newInstance(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.discard()
	cfgJSON, err := cfg.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, prec := range []string{"fp32", "mixed"} {
		want := nativeCodec(t, cfg, seed, prec, codes, []int{frames}, threads)
		m, load, err := recordCodec(st, func(b codec.Backend) (*codec.Model, error) { return codec.NewSynthetic(cfg, seed, b, prec) })
		if err != nil {
			t.Fatal(err)
		}
		if load.Precision != prec || string(load.Config) != string(cfgJSON) {
			t.Fatalf("recorded load says %s, %s; want %s, %s", load.Precision, load.Config, prec, cfgJSON)
		}
		before := st.used
		s, err := m.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		viaRec := make([]float32, len(want))
		if err := s.Decode(codes, viaRec); err != nil {
			t.Fatal(err)
		}
		if got, want := st.table.live, len(load.Created)+1; got != want {
			t.Errorf("%s: %d live handles with one host stream, want the load's %d and its window state", prec, got, want-1)
		}
		s.Close()
		if st.used != before {
			t.Errorf("%s: host-owned objects charged %d bytes to the instance", prec, st.used-before)
		}
		if !sameBits(viaRec, want) {
			t.Fatalf("%s: decode through the recorder's handles differs from a plain native decode", prec)
		}
		live := st.table.live
		got, err := in.codecDecode(&abi.CodecSpec{Load: load, Codes: codes, Pushes: split})
		if err != nil {
			t.Fatalf("%s: %v", prec, err)
		}
		if !sameBits(got, want) {
			t.Fatalf("%s: the guest's decode on the replayed load differs from native", prec)
		}
		if n := st.table.count(in.owner); n != 0 || st.used != 0 || st.table.live != live {
			t.Errorf("%s: after the guest's decode: %d guest handles, %d bytes charged, %d live (want 0, 0, %d)", prec, n, st.used, st.table.live, live)
		}
		// A log that does not match the load is refused, not run.
		bad := append([]abi.Created(nil), load.Created...)
		bad[3].Dims = append([]int{bad[3].Dims[0] + 1}, bad[3].Dims[1:]...)
		if _, err := in.codecDecode(&abi.CodecSpec{Load: &abi.CodecLoad{Config: cfgJSON, Precision: prec, Created: bad},
			Codes: codes}); err == nil {
			t.Errorf("%s: a replay log with a wrong shape was accepted", prec)
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if st.table.live != 0 {
		t.Errorf("%d handles live after the host closed its loads", st.table.live)
	}
}
