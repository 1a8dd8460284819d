package speaker_test

import (
	"testing"

	"github.com/omni-tts/omni/speaker"
)

// FuzzParseCheckpointConfig: any config.json is either refused with an
// error or gives a config that validates and whose tensor list and minimum
// length can be computed.
func FuzzParseCheckpointConfig(f *testing.F) {
	f.Add([]byte(`{"tts_model_type":"base","speaker_encoder_config":{"enc_dim":1024,"sample_rate":24000}}`))
	f.Add([]byte(`{"speaker_encoder_config":{"mel_dim":128,"enc_dim":13,"enc_channels":[48,48,48,40],"enc_kernel_sizes":[3,3,3,3],"enc_dilations":[1,2,5,2],"enc_attention_channels":7,"enc_res2net_scale":8,"enc_se_channels":5,"sample_rate":24000}}`))
	f.Add([]byte(`{"speaker_encoder_config":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := speaker.ParseCheckpointConfig(b)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted an invalid config: %v", err)
		}
		if n := len(speaker.ExpectedTensors(&c)); n < 8 {
			t.Fatalf("%d tensors", n)
		}
		if c.MinSamples() < 385 {
			t.Fatalf("MinSamples %d", c.MinSamples())
		}
	})
}
