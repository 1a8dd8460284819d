package wasm

import (
	"errors"
	"strings"
	"testing"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/wasm/abi"
)

// logBackend is a codec.Backend that only logs what a load makes, as the
// host's recorder does (abi.Created in call order, handles 1, 2, …); its
// ops do nothing.
type logBackend struct{ log []abi.Created }

func (l *logBackend) add(c abi.Created) (int32, error) {
	c.Handle = int32(len(l.log) + 1)
	l.log = append(l.log, c)
	return c.Handle, nil
}

func (l *logBackend) NewMatrix(rows, cols int, data, bias []float32, prec string) (int32, error) {
	return l.add(abi.Created{Kind: abi.KindMatrix, Dims: []int{rows, cols}, Prec: prec, Bias: bias != nil})
}
func (l *logBackend) NewConv(out, in, k, d int, w, bias []float32, prec string) (int32, error) {
	return l.add(abi.Created{Kind: abi.KindConv, Dims: []int{out, in, k, d}, Prec: prec, Bias: bias != nil})
}
func (l *logBackend) NewConvTranspose(in, out, k, s int, w, bias []float32, prec string) (int32, error) {
	return l.add(abi.Created{Kind: abi.KindConvTranspose, Dims: []int{in, out, k, s}, Prec: prec, Bias: bias != nil})
}
func (l *logBackend) NewDepthwise(ch, k int, w, bias []float32) (int32, error) {
	return l.add(abi.Created{Kind: abi.KindDepthwise, Dims: []int{ch, k}, Bias: bias != nil})
}
func (l *logBackend) NewVector(data []float32) (int32, error) {
	return l.add(abi.Created{Kind: abi.KindVector, Dims: []int{len(data)}})
}
func (l *logBackend) NewTable(rows, cols int, data []float32) (int32, error) {
	return l.add(abi.Created{Kind: abi.KindTable, Dims: []int{rows, cols}})
}
func (l *logBackend) NewSnake(ch int, a, b []float32) (int32, error) {
	return l.add(abi.Created{Kind: abi.KindSnake, Dims: []int{ch}})
}
func (l *logBackend) NewWindowKV(layers, heads, hd, win int) (int32, error) {
	return l.add(abi.Created{Kind: abi.KindWindowKV, Dims: []int{layers, heads, hd, win}})
}
func (l *logBackend) ResetKV(int32) error                                     { return nil }
func (l *logBackend) Free(int32) error                                        { return nil }
func (l *logBackend) Bytes(int32) (int64, error)                              { return 0, nil }
func (l *logBackend) MatMul([]float32, []float32, int, int32) error           { return nil }
func (l *logBackend) Conv([]float32, []float32, int, int, int32) error        { return nil }
func (l *logBackend) Depthwise([]float32, []float32, int, int, int32) error   { return nil }
func (l *logBackend) RMSNorm([]float32, []float32, int, int32, float32) error { return nil }
func (l *logBackend) SwiGLU([]float32, []float32, int) error                  { return nil }
func (l *logBackend) GELU([]float32, []float32) error                         { return nil }
func (l *logBackend) Snake([]float32, []float32, int, int32) error            { return nil }
func (l *logBackend) Scale([]float32, []float32, int, int32) error            { return nil }
func (l *logBackend) Embed([]float32, []int32, int, int32) error              { return nil }
func (l *logBackend) LayerNorm([]float32, []float32, int, int32, int32, float32) error {
	return nil
}
func (l *logBackend) ConvTranspose([]float32, []float32, int, int, int32, []float32) error {
	return nil
}
func (l *logBackend) WindowAttention([]float32, []float32, int, []int32, []int32, int, int, int, float32) error {
	return nil
}

// TestReplayCodec replays, outside WASI (a replay makes no host call), the
// log of a synthetic codec load: the real load's calls must claim every
// logged handle in order, and a log of another precision, one short or one
// long must be refused with the reason.
func TestReplayCodec(t *testing.T) {
	cfg := codec.TinyConfig()
	js, err := cfg.JSON()
	if err != nil {
		t.Fatal(err)
	}
	rec := &logBackend{}
	if _, err := codec.NewSynthetic(cfg, 3, rec, "mixed"); err != nil {
		t.Fatal(err)
	}
	if len(rec.log) < 50 {
		t.Fatalf("the load made only %d objects", len(rec.log))
	}
	m, err := NewBackend().ReplayCodec(&abi.CodecLoad{Config: js, Precision: "mixed", Created: rec.log})
	if err != nil {
		t.Fatal(err)
	}
	if m.SamplesPerFrame() != cfg.SamplesPerFrame() || m.Precision() != "mixed" {
		t.Errorf("replayed model: %d samples per frame, %s; want %d, mixed", m.SamplesPerFrame(), m.Precision(), cfg.SamplesPerFrame())
	}
	for _, c := range []struct {
		name string
		load abi.CodecLoad
		want string
	}{
		{"another precision", abi.CodecLoad{Config: js, Precision: "fp32", Created: rec.log}, "host made"},
		{"one short", abi.CodecLoad{Config: js, Precision: "mixed", Created: rec.log[:len(rec.log)-1]}, "did not make"},
		{"one long", abi.CodecLoad{Config: js, Precision: "mixed", Created: append(rec.log[:len(rec.log):len(rec.log)], rec.log[0])}, "unclaimed"},
		{"no config", abi.CodecLoad{Precision: "mixed", Created: rec.log}, "codec replay"},
	} {
		_, err := NewBackend().ReplayCodec(&c.load)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error containing %q", c.name, err, c.want)
		}
	}
	// Outside a replay the guest backend's codec ops are host calls, which
	// fail natively with ErrNotWASI.
	if _, err := NewBackend().NewWindowKV(1, 1, 4, 3); !errors.Is(err, abi.ErrNotWASI) {
		t.Errorf("NewWindowKV outside WASI: %v, want ErrNotWASI", err)
	}
}
