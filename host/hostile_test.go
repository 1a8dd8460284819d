package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// buildWasm builds the reactor in dir (a package path) for wasip1 into a
// temp dir, skipping the test when the go tool is missing.
func buildWasm(t *testing.T, pkg string) []byte {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found (%v): cannot build the test guest", err)
	}
	out := filepath.Join(t.TempDir(), "guest.wasm")
	cmd := exec.Command(gobin, "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHostileGuest(t *testing.T) {
	mod := buildWasm(t, "./testdata/hostile")
	nb := simd.NewBackend(1)
	defer nb.Close()
	s := newHostState(nb, nil, 1<<30)
	rec := &recorder{s: s}
	mat := make([]float32, 4*8)
	for i := range mat {
		mat[i] = float32(i%9) - 4
	}
	tab := make([]float32, 16*8)
	for i := range tab {
		tab[i] = float32(i) * 0.5
	}
	vec := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	must := func(h int32, err error) int32 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	hMat := must(rec.NewMatrix(4, 8, mat, nil, "fp32"))
	hTab := must(rec.NewTable(16, 8, tab))
	hVec := must(rec.NewVector(vec))
	hRope := must(rec.NewRope(8, 4, 10000))
	hKV := must(rec.NewKVCache(1, 1, 8, 4))
	other := newHostState(nb, nil, 1<<30)
	for other.table.tag == s.table.tag {
		other.table = newHandleTable()
	}
	foreign := must((&recorder{s: other}).NewVector(vec))

	v, err := newVM(context.Background(), s, vmConfig{module: mod})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close(context.Background())
	in, err := v.newInstance(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	setup := in.mod.ExportedFunction("setup")
	attack := in.mod.ExportedFunction("attack")
	if _, err := setup.Call(context.Background(), uint64(hMat), uint64(hTab), uint64(hVec), uint64(hRope), uint64(hKV), uint64(foreign)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		want abi.Status
	}{
		{"good matmul", abi.StatusOK},
		{"output outside memory", abi.StatusBadPointer},
		{"input outside memory", abi.StatusBadPointer},
		{"huge length", abi.StatusBadLength},
		{"negative rows", abi.StatusBadArgument},
		{"misaligned pointer", abi.StatusBadPointer},
		{"length off by one", abi.StatusBadLength},
		{"stale handle", abi.StatusStaleHandle},
		{"foreign handle", abi.StatusForeignHandle},
		{"vector as matrix", abi.StatusWrongKind},
		{"made-up handle", abi.StatusForeignHandle},
		{"zero and negative handles", abi.StatusBadHandle},
		{"free a host weight", abi.StatusReadOnly},
		{"overwrite a host table", abi.StatusReadOnly},
		{"id past the table", abi.StatusBadArgument},
		{"negative id", abi.StatusBadArgument},
		{"negative per_row", abi.StatusBadArgument},
		{"position past the cache", abi.StatusBadArgument},
		{"matrix as cache", abi.StatusWrongKind},
		{"layer past the cache", abi.StatusBadArgument},
		{"huge head count", abi.StatusBadLength},
		{"caches outside memory", abi.StatusBadPointer},
		{"kv cache beyond budget", abi.StatusBadArgument},
		{"upload from outside memory", abi.StatusBadPointer},
		{"result slot outside memory", abi.StatusBadPointer},
		{"unknown precision", abi.StatusBadArgument},
		{"NaN epsilon", abi.StatusBadArgument},
		{"no weight source", abi.StatusSource},
		{"misaligned i64 slot", abi.StatusBadPointer},
		{"odd swiglu split", abi.StatusBadLength},
		{"double free", abi.StatusStaleHandle},
		{"range wrapping 4 GiB", abi.StatusBadPointer},
		{"version into a wild slot", abi.StatusBadPointer},
		{"table write at row -1", abi.StatusBadArgument},
		{"odd rope head size", abi.StatusBadArgument},
		{"negative length", abi.StatusBadLength},
		{"attention into a host cache", abi.StatusReadOnly},
		{"good attention", abi.StatusOK},
	}
	for k, c := range cases {
		r, err := attack.Call(context.Background(), uint64(k))
		if err != nil {
			t.Fatalf("case %d (%s) trapped: %v", k, c.name, err)
		}
		if got := abi.Status(int32(r[0])); got != c.want {
			t.Errorf("case %d (%s): status %d (%v), want %d (%v)", k, c.name, got, got, c.want, c.want)
		}
	}
	if n := s.table.count(in.owner); n != 0 {
		t.Errorf("hostile guest left %d handles of its own live", n)
	}
	if s.used != 0 {
		t.Errorf("hostile guest still charged %d bytes", s.used)
	}
	// Host objects are intact: the matrix and the table give the values
	// plain loops give on the original data.
	x := []float32{1, -1, 2, 0, 0.5, 3, -2, 1}
	y := make([]float32, 4)
	nm, _ := rec.nat(hMat)
	if err := nb.MatMul(y, x, 1, nm); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 4; r++ {
		var want float32
		for c := 0; c < 8; c++ {
			want += mat[r*8+c] * x[c]
		}
		if d := y[r] - want; d > 1e-5 || d < -1e-5 {
			t.Errorf("host matrix row %d after attacks = %g, want %g", r, y[r], want)
		}
	}
	nt, _ := rec.nat(hTab)
	row := make([]float32, 8)
	for id := int32(0); id < 16; id++ {
		if err := nb.Embed(row, []int32{id}, 1, nt); err != nil {
			t.Fatal(err)
		}
		for c := range row {
			if row[c] != tab[int(id)*8+c] {
				t.Fatalf("host table row %d col %d after attacks = %g, want %g", id, c, row[c], tab[int(id)*8+c])
			}
		}
	}
	in.discard()
	if s.table.live != 5 {
		t.Errorf("after discard the table holds %d live handles, want the 5 host objects", s.table.live)
	}
}
