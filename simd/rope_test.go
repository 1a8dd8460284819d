package simd

import (
	"math"
	"strings"
	"testing"
)

// refRopeTables recomputes the tables the way transformers' default rotary
// embedding does in float32 (inv_freq = 1/(theta ** (arange(0,d,2).float()/d)),
// freqs = inv_freq·pos, then cos/sin), with cos/sin correctly rounded.
func refRopeTables(d int, theta float64, maxPos int) (cos, sin [][]float32) {
	half := d / 2
	for p := range maxPos {
		c, s := make([]float32, half), make([]float32, half)
		for i := range half {
			ex := float32(float32(2*i) / float32(d))
			pw := float32(math.Pow(float64(float32(theta)), float64(ex)))
			inv := float32(1) / pw
			ang := float32(float32(p) * inv)
			c[i], s[i] = float32(math.Cos(float64(ang))), float32(math.Sin(float64(ang)))
		}
		cos, sin = append(cos, c), append(sin, s)
	}
	return cos, sin
}

func TestRopeTablesMatchPyTorchSteps(t *testing.T) {
	for _, c := range []struct {
		d      int
		theta  float64
		maxPos int
	}{{128, 1e6, 300}, {64, 1e4, 40}, {2, 10, 3}} {
		r, err := NewRope(c.d, c.theta, c.maxPos)
		if err != nil {
			t.Fatal(err)
		}
		wc, ws := refRopeTables(c.d, c.theta, c.maxPos)
		for p := range c.maxPos {
			gc, gs := r.CosSin(p)
			if i := vecFirstDiff(gc, wc[p]); i >= 0 {
				t.Fatalf("NewRope(%d, %g) cos[pos %d][%d] = %v, want %v", c.d, c.theta, p, i, gc[i], wc[p][i])
			}
			if i := vecFirstDiff(gs, ws[p]); i >= 0 {
				t.Fatalf("NewRope(%d, %g) sin[pos %d][%d] = %v, want %v", c.d, c.theta, p, i, gs[i], ws[p][i])
			}
		}
	}
}

// TestRopeTablesPyTorchValues checks spot values printed by PyTorch 1.13
// (Debian, CPU) for head_dim 128, theta 1e6: cos/sin within one ulp of 1.
func TestRopeTablesPyTorchValues(t *testing.T) {
	r, err := NewRope(128, 1e6, 8192)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		pos, i   int
		cos, sin uint32
	}{
		{1, 0, 0x3f0a5141, 0x3f576aa4},
		{7, 3, 0xbf5df871, 0xbeff11c7},
		{1000, 0, 0x3f0ff813, 0x3f53ae61},
		{1000, 20, 0x3f37fdb3, 0x3f31ff80},
		{4095, 63, 0x3f7fff28, 0x3ba683b4},
		{8191, 1, 0xbf7c693c, 0xbe2add27},
	} {
		c, s := r.CosSin(v.pos)
		wc, ws := math.Float32frombits(v.cos), math.Float32frombits(v.sin)
		if math.Abs(float64(c[v.i]-wc)) > 6e-8 || math.Abs(float64(s[v.i]-ws)) > 6e-8 {
			t.Errorf("rope pos %d freq %d: cos, sin = %v, %v; PyTorch %v, %v", v.pos, v.i, c[v.i], s[v.i], wc, ws)
		}
	}
	// Angles at position 1 are inv_freq itself; PyTorch's inv_freq[1, 10, 36, 63].
	for i, bits := range map[int]uint32{1: 0x3f4e4bad, 10: 0x3dec7fd6, 36: 0x39dd1725, 63: 0x35a68e4c} {
		want := math.Float32frombits(bits)
		c, s := r.CosSin(1)
		if got := float32(math.Atan2(float64(s[i]), float64(c[i]))); math.Abs(float64(got-want)) > 1e-7*float64(want)+1e-7 {
			t.Errorf("rope inv_freq[%d] = %v (from the pos-1 angle), PyTorch %v", i, got, want)
		}
	}
}

func TestRopeApply(t *testing.T) {
	r, err := NewRope(128, 1e6, 300)
	if err != nil {
		t.Fatal(err)
	}
	rng := vecRNG(20)
	for _, heads := range []int{1, 2, 8, 16} {
		for _, pos := range []int{0, 1, 17, 299} {
			x := vecRandBuf(rng, heads*128, 1, 3)
			x0 := vecClone(x.s())
			r.Apply(x.s(), heads, pos)
			c, s := r.CosSin(pos)
			for h := range heads {
				for i := range 64 {
					a, b := float64(x0[h*128+i]), float64(x0[h*128+64+i])
					cc, ss := float64(c[i]), float64(s[i])
					want := [2]float64{a*cc - b*ss, b*cc + a*ss}
					got := [2]float32{x.s()[h*128+i], x.s()[h*128+64+i]}
					mag := math.Abs(a*cc) + math.Abs(b*ss) + math.Abs(b*cc) + math.Abs(a*ss)
					for k := range 2 {
						if !vecClose(float64(got[k]), want[k], mag, 1.2e-7, 0) {
							t.Fatalf("Rope.Apply(heads %d, pos %d) head %d elem %d = %v, want %v", heads, pos, h, i+64*k, got[k], want[k])
						}
					}
				}
			}
			if pos == 0 && vecFirstDiff(x.s(), x0) >= 0 {
				t.Fatalf("Rope.Apply at position 0 changed x (cos 1, sin 0 must be the identity)")
			}
			x.check(t, "Rope.Apply")
		}
	}
}

func TestRopeApplyAllocs(t *testing.T) {
	r, _ := NewRope(128, 1e6, 64)
	x := make([]float32, 16*128)
	if a := testing.AllocsPerRun(20, func() { r.Apply(x, 16, 63) }); a != 0 {
		t.Fatalf("Rope.Apply allocates %v times per call", a)
	}
}

func TestNewRopeErrors(t *testing.T) {
	for _, c := range []struct {
		d      int
		theta  float64
		maxPos int
		want   string
	}{
		{7, 1e6, 10, "head_dim 7"},
		{0, 1e6, 10, "head_dim 0"},
		{128, 0.5, 10, "theta 0.5"},
		{128, math.NaN(), 10, "theta NaN"},
		{128, 1e6, 0, "max positions 0"},
	} {
		_, err := NewRope(c.d, c.theta, c.maxPos)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "simd: ") {
			t.Errorf("NewRope(%d, %v, %d) error = %v, want one naming %q", c.d, c.theta, c.maxPos, err, c.want)
		}
	}
}

func TestRopeApplyPanics(t *testing.T) {
	r, _ := NewRope(8, 1e4, 4)
	for name, f := range map[string]func(){
		"len":     func() { r.Apply(make([]float32, 15), 2, 0) },
		"pos":     func() { r.Apply(make([]float32, 16), 2, 4) },
		"neg pos": func() { r.Apply(make([]float32, 16), 2, -1) },
	} {
		func() {
			defer func() {
				if s, _ := recover().(string); !strings.HasPrefix(s, "omni: BUG: ") {
					t.Errorf("Rope.Apply bad %s: want an omni: BUG panic, got %q", name, s)
				}
			}()
			f()
		}()
	}
}
