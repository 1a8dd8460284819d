package speaker_test

import (
	"strings"
	"testing"

	"github.com/omni-tts/omni/speaker"
)

// TestMACs counts the multiply-adds from the tensor list: every conv weight
// element once per frame, except the squeeze-excitation convs and fc (once
// per clip) and the pooling bottleneck, whose mean and std thirds run once.
func TestMACs(t *testing.T) {
	for _, c := range []speaker.Config{speaker.DefaultConfig(1024), speaker.TinyConfig()} {
		const T = 937
		var want int64
		for _, ts := range speaker.ExpectedTensors(&c) {
			if !strings.HasSuffix(ts.Name, ".weight") {
				continue
			}
			n := int64(ts.Elems())
			switch {
			case strings.Contains(ts.Name, "se_block"), strings.HasSuffix(ts.Name, "fc.weight"):
				want += n
			case strings.HasSuffix(ts.Name, "asp.tdnn.conv.weight"):
				want += n/3*T + 2*n/3
			default:
				want += n * T
			}
		}
		if got := c.MACs(T); got != want {
			t.Errorf("MACs(%d) = %d, the tensors give %d", T, got, want)
		}
	}
}
