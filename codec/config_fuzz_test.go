package codec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/omni-tts/omni/codec"
)

// FuzzParseConfig checks the speech tokenizer's config.json (a file of a
// downloaded checkpoint): it is refused with ErrConfig and a message naming
// the file, or parses to a geometry that validates, whose samples per frame
// (recomputed here in big integers) lie in [1, 65536] and match
// decode_upsample_rate when given, whose tensor list stays small, and which
// survives Config.JSON and ParseConfig unchanged.
func FuzzParseConfig(f *testing.F) {
	for _, c := range []codec.Config{codec.RealConfig(), codec.TinyConfig()} {
		js, err := c.JSON()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js)
		for _, e := range [][2]string{
			{`"num_quantizers": 16`, `"num_quantizers": 8`}, {`"head_dim": `, `"head_dim": 1`},
			{`"hidden_act": "silu"`, `"hidden_act": "gelu"`}, {`"sliding_window": `, `"sliding_window": -`},
			{`"rms_norm_eps": `, `"rms_norm_eps": 1e-50, "x": `}, {`"rope_theta": `, `"rope_theta": 1e39, "x": `},
		} {
			f.Add(bytes.Replace(js, []byte(e[0]), []byte(e[1]), 1))
		}
	}
	// 64^11 = 2^66 samples per frame: wraps to 0 in an int
	wrap, err := json.Marshal(map[string]any{"decoder_config": map[string]any{
		"codebook_size": 24, "codebook_dim": 64, "latent_dim": 64, "decoder_dim": 8, "hidden_size": 32,
		"intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "head_dim": 32,
		"sliding_window": 5, "num_quantizers": 16,
		"upsampling_ratios": []int{64, 64, 64, 64, 64, 64, 64, 64}, "upsample_rates": []int{64, 64, 64},
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(wrap)
	tc := codec.TinyConfig()
	tiny, err := tc.JSON()
	if err != nil {
		f.Fatal(err)
	}
	// a million layers: a tensor list of ten million entries
	f.Add(bytes.Replace(tiny, []byte(`"num_hidden_layers": 2`), []byte(`"num_hidden_layers": 1048576`), 1))
	f.Add([]byte(`{"decoder_config": null}`))
	f.Add([]byte(`{"decoder_config": []}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := codec.ParseConfig(b)
		if err != nil {
			if !errors.Is(err, codec.ErrConfig) || !strings.Contains(err.Error(), "config.json") {
				t.Fatalf("error %v is not ErrConfig naming config.json", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed config does not validate: %v", err)
		}
		spf := big.NewInt(1)
		for _, r := range append(append([]int(nil), c.UpsamplingRatios...), c.UpsampleRates...) {
			spf.Mul(spf, big.NewInt(int64(r)))
		}
		if spf.Sign() <= 0 || spf.Cmp(big.NewInt(1<<16)) > 0 || spf.Int64() != int64(c.SamplesPerFrame()) {
			t.Fatalf("ratios %v and rates %v give %v samples per frame; accepted with %d", c.UpsamplingRatios, c.UpsampleRates, spf, c.SamplesPerFrame())
		}
		var top struct {
			DecodeUpsample *int `json:"decode_upsample_rate"`
		}
		if err := json.Unmarshal(b, &top); err != nil {
			t.Fatalf("config accepted, but encoding/json refuses it: %v", err)
		}
		if top.DecodeUpsample != nil && int64(*top.DecodeUpsample) != spf.Int64() {
			t.Fatalf("decode_upsample_rate %d accepted for %v samples per frame", *top.DecodeUpsample, spf)
		}
		if n := len(codec.ExpectedTensors(&c)); n > 1<<16 {
			t.Fatalf("accepted a geometry of %d tensors", n)
		}
		js, err := c.JSON()
		if err != nil {
			t.Fatalf("JSON: %v", err)
		}
		back, err := codec.ParseConfig(js)
		if err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("round trip: %+v, %v; want %+v", back, err, c)
		}
	})
}
