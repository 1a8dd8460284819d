package safetensors

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rawFile builds a safetensors file by hand: length prefix, header, data.
func rawFile(t *testing.T, header string, data []byte) string {
	t.Helper()
	b := make([]byte, 8, 8+len(header)+len(data))
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	b = append(b, header...)
	b = append(b, data...)
	p := filepath.Join(t.TempDir(), "x.safetensors")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func le32(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func TestSafetensorsReadHandWritten(t *testing.T) {
	// a: F32 [2,3] at [0,24); b: BF16 [2] at [24,28) holding 1.5 and -2;
	// c: F16 [3] at [28,34) holding 1, 2^-24 (smallest subnormal), -inf;
	// ids: I32 [2] at [34,42) holding -7, 9.
	hdr := `{"b":{"dtype":"BF16","shape":[2],"data_offsets":[24,28]},` +
		`"__metadata__":{"format":"pt"},` +
		`"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},` +
		`"c":{"dtype":"F16","shape":[3],"data_offsets":[28,34]},` +
		`"ids":{"dtype":"I32","shape":[2],"data_offsets":[34,42]}}  `
	data := le32(1, 2, 3, 4, 5, 6)
	data = append(data, 0xc0, 0x3f, 0x00, 0xc0) // bf16 0x3fc0 = 1.5, 0xc000 = -2
	data = append(data, 0x00, 0x3c, 0x01, 0x00, 0x00, 0xfc)
	data = binary.LittleEndian.AppendUint32(data, uint32(0xfffffff9))
	data = binary.LittleEndian.AppendUint32(data, 9)
	f, err := Open(rawFile(t, hdr, data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, want := f.Names(), []string{"a", "b", "c", "ids"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	if md := f.Metadata(); md["format"] != "pt" || len(md) != 1 {
		t.Fatalf("Metadata() = %v", md)
	}
	a, shape, err := f.F32("a")
	if err != nil || !slices.Equal(a, []float32{1, 2, 3, 4, 5, 6}) || !slices.Equal(shape, []int{2, 3}) {
		t.Fatalf("F32(a) = %v %v %v", a, shape, err)
	}
	row := make([]float32, 3)
	if err := f.ReadRowsF32("a", 1, 1, row); err != nil || !slices.Equal(row, []float32{4, 5, 6}) {
		t.Fatalf("ReadRowsF32(a, 1, 1) = %v %v", row, err)
	}
	if err := f.ReadRowsF32("a", 2, 1, row); !errors.Is(err, ErrShape) {
		t.Fatalf("ReadRowsF32(a, 2, 1) err = %v, want ErrShape", err)
	}
	b, _, err := f.F32("b")
	if err != nil || !slices.Equal(b, []float32{1.5, -2}) {
		t.Fatalf("F32(b) = %v %v", b, err)
	}
	c, _, err := f.F32("c")
	if err != nil || c[0] != 1 || c[1] != float32(math.Ldexp(1, -24)) || !math.IsInf(float64(c[2]), -1) {
		t.Fatalf("F32(c) = %v %v", c, err)
	}
	ids, _, err := f.Int64s("ids")
	if err != nil || !slices.Equal(ids, []int64{-7, 9}) {
		t.Fatalf("Int64s(ids) = %v %v", ids, err)
	}
	if _, _, err := f.Int64s("a"); !errors.Is(err, ErrDType) {
		t.Fatalf("Int64s(a) err = %v, want ErrDType", err)
	}
	if _, _, err := f.F32("ids"); !errors.Is(err, ErrDType) {
		t.Fatalf("F32(ids) err = %v, want ErrDType", err)
	}
	_, _, err = f.F32("nope")
	var te *TensorError
	if !errors.Is(err, ErrNoTensor) || !errors.As(err, &te) || te.Name != "nope" || !strings.Contains(err.Error(), "x.safetensors") {
		t.Fatalf("F32(nope) err = %v", err)
	}
	if err := f.ReadF32("a", make([]float32, 5)); !errors.Is(err, ErrShape) {
		t.Fatalf("ReadF32(a, 5 floats) err = %v, want ErrShape", err)
	}
	f.Close()
	if err := f.ReadF32("a", make([]float32, 6)); !errors.Is(err, ErrClosed) {
		t.Fatalf("ReadF32 after Close err = %v, want ErrClosed", err)
	}
}

// TestSafetensorsFallbackReader reads through the ReadAt path every platform
// without mmap uses.
func TestSafetensorsFallbackReader(t *testing.T) {
	vals := make([]float32, 3*readChunk/4+5) // more than one chunk
	for i := range vals {
		vals[i] = float32(i)
	}
	p := filepath.Join(t.TempDir(), "big.safetensors")
	if err := Write(p, []WriteTensor{{Name: "w", DType: F32, Shape: []int{len(vals)}, Data: EncodeF32(vals)}}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	f.r.close()
	f.r = &fileRegion{f: fh}
	got, _, err := f.F32("w")
	if err != nil || !slices.Equal(got, vals) {
		t.Fatalf("F32 through ReadAt: err %v, equal %v", err, slices.Equal(got, vals))
	}
}

func TestBF16Rounding(t *testing.T) {
	for _, c := range []struct {
		in   uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // tie, even stays
		{0x3f818000, 0x3f82}, // tie, odd rounds up
		{0x3f808001, 0x3f81}, // above half
		{0x3f807fff, 0x3f80}, // below half
		{0x7f7fffff, 0x7f80}, // max float rounds to inf
		{0xff800000, 0xff80}, // -inf
		{0x7f800001, 0x7fc0}, // signalling NaN → quiet NaN
	} {
		if got := BF16FromF32(math.Float32frombits(c.in)); got != c.want {
			t.Errorf("BF16FromF32(%#08x) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
}

func TestF16ToF32(t *testing.T) {
	for _, c := range []struct {
		in   uint16
		want float64
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0400, math.Ldexp(1, -14)},
		{0x03ff, 1023 * math.Ldexp(1, -24)}, {0x8001, -math.Ldexp(1, -24)}, {0x7c00, math.Inf(1)},
		{0x3555, 0.25 * (1 + 0x155/1024.0)}, // exponent 13, mantissa 0x155
	} {
		if got := F16ToF32(c.in); float64(got) != c.want {
			t.Errorf("F16ToF32(%#04x) = %g, want %g", c.in, got, c.want)
		}
	}
	if got := F16ToF32(0x7e00); !math.IsNaN(float64(got)) {
		t.Errorf("F16ToF32(0x7e00) = %g, want NaN", got)
	}
}

func TestWriteSafetensorsRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.safetensors")
	w := []float32{0.1, -3.25, 1e-3}
	err := Write(p, []WriteTensor{
		{Name: "z", DType: F32, Shape: []int{3}, Data: EncodeF32(w)},
		{Name: "bf", DType: BF16, Shape: []int{1, 3}, Data: EncodeBF16(w)},
		{Name: "i", DType: I64, Shape: []int{2}, Data: EncodeI64([]int64{-1, 1 << 40})},
		{Name: "empty", DType: F32, Shape: []int{0, 4}, Data: []byte{}},
	}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(p)
	if n := binary.LittleEndian.Uint64(raw); n%8 != 0 {
		t.Errorf("header length %d not a multiple of 8", n)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, _, _ := f.F32("z"); !slices.Equal(got, w) {
		t.Errorf("z = %v, want %v", got, w)
	}
	got, _, _ := f.F32("bf")
	for i := range w {
		// bf16 keeps 8 significant bits: relative error ≤ 2^-9.
		if d := math.Abs(float64(got[i]-w[i])) / math.Abs(float64(w[i])); d > 1.0/512 {
			t.Errorf("bf[%d] = %g, want %g within 2^-9", i, got[i], w[i])
		}
	}
	if got, _, _ := f.Int64s("i"); !slices.Equal(got, []int64{-1, 1 << 40}) {
		t.Errorf("i = %v", got)
	}
	if got, shape, err := f.F32("empty"); err != nil || len(got) != 0 || !slices.Equal(shape, []int{0, 4}) {
		t.Errorf("empty = %v %v %v", got, shape, err)
	}
	if err := Write(p, []WriteTensor{{Name: "a", DType: F32, Shape: []int{2}, Data: []byte{1, 2, 3}}}, nil); !errors.Is(err, ErrShape) {
		t.Errorf("short data err = %v, want ErrShape", err)
	}
	if err := Write(p, []WriteTensor{{Name: "a", DType: F32, Shape: []int{1}, Data: le32(1)}, {Name: "a", DType: F32, Shape: []int{1}, Data: le32(1)}}, nil); !errors.Is(err, ErrFormat) {
		t.Errorf("duplicate name err = %v, want ErrFormat", err)
	}
	// A failed write leaves the earlier file intact.
	if _, err := Open(p); err != nil {
		t.Errorf("file after failed rewrites: %v", err)
	}
}
