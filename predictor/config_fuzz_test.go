package predictor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// normalized is c with empty id and dialect tables as nil, so that a round
// trip through EncodeConfig, which writes an absent table as {} or null,
// compares equal.
func normalized(c *Config) Config {
	n := *c
	if len(n.LanguageIDs) == 0 {
		n.LanguageIDs = nil
	}
	if len(n.SpeakerIDs) == 0 {
		n.SpeakerIDs = nil
	}
	if len(n.SpeakerDialects) == 0 {
		n.SpeakerDialects = nil
	}
	return n
}

// FuzzParseConfig checks config.json and generation_config.json (files of a
// downloaded checkpoint): a pair is refused with ErrConfig and a message
// naming the file, or parses to a Config that validates, agrees with
// encoding/json on the values it read, and survives EncodeConfig and
// ParseConfig unchanged.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(config06B), []byte(generation06B), true)
	f.Add([]byte(config06B), []byte(nil), false)
	for _, size := range synthSizes {
		c, err := SynthConfig(size)
		if err != nil {
			f.Fatal(err)
		}
		cj, gj, err := EncodeConfig(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(cj, gj, true)
	}
	for _, g := range []string{`{"top_p": 1.5}`, `{"top_k": "50"}`, `{"do_sample": 1}`, `[1]`, `{"max_new_tokens": 0}`, `null`, `{"min_new_tokens": 3}`} {
		f.Add([]byte(config06B), []byte(g), true)
	}
	for _, c := range []string{`{"talker_config": `, `null`, `{}`, `{"talker_config": null}`, `{"talker_config": {"code_predictor_config": []}}`} {
		f.Add([]byte(c), []byte(nil), false)
	}
	f.Add(bytes.Replace([]byte(config06B), []byte(`"num_hidden_layers": 5`), []byte(`"num_hidden_layers": 0`), 1), []byte(nil), false)
	f.Add(bytes.Replace([]byte(config06B), []byte(`"num_code_groups": 16,`), []byte(`"num_code_groups": 1,`), 1), []byte(nil), false)
	// absurd geometry: ExpectedTensors (and EncodeConfig) loop over layers and groups
	f.Add(bytes.Replace([]byte(config06B), []byte(`"num_hidden_layers": 5`), []byte(`"num_hidden_layers": 2147483647`), 1), []byte(nil), false)
	f.Add(bytes.ReplaceAll([]byte(config06B), []byte(`"num_code_groups": 16`), []byte(`"num_code_groups": 2147483647`)), []byte(nil), false)
	f.Fuzz(func(t *testing.T, cfg, gen []byte, withGen bool) {
		if !withGen {
			gen = nil
		} else if gen == nil {
			gen = []byte{}
		}
		c, err := ParseConfig(cfg, gen)
		if err != nil {
			if !errors.Is(err, ErrConfig) || !strings.HasPrefix(err.Error(), "predictor: bad config: ") {
				t.Fatalf("error %v is not ErrConfig", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "config.json: ") {
				t.Fatalf("error %q does not name the file", msg)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed config does not validate: %v", err)
		}
		// a few values, read back with encoding/json alone
		var top struct {
			Pad    json.Number `json:"tts_pad_token_id"`
			Talker struct {
				Hidden json.Number `json:"hidden_size"`
				Vocab  json.Number `json:"vocab_size"`
				Pred   struct {
					Layers json.Number `json:"num_hidden_layers"`
					Vocab  json.Number `json:"vocab_size"`
				} `json:"code_predictor_config"`
			} `json:"talker_config"`
		}
		d := json.NewDecoder(bytes.NewReader(cfg))
		d.UseNumber()
		if err := d.Decode(&top); err != nil {
			t.Fatalf("config accepted, but encoding/json refuses it: %v", err)
		}
		for _, v := range []struct {
			name string
			raw  json.Number
			got  int
		}{
			{"tts_pad_token_id", top.Pad, c.TTSPad}, {"talker_config.hidden_size", top.Talker.Hidden, c.Talker.Hidden},
			{"talker_config.vocab_size", top.Talker.Vocab, c.TalkerVocab},
			{"code_predictor_config.num_hidden_layers", top.Talker.Pred.Layers, c.Predictor.Layers},
			{"code_predictor_config.vocab_size", top.Talker.Pred.Vocab, c.PredictorVocab},
		} {
			if n, err := v.raw.Int64(); err != nil || n != int64(v.got) {
				t.Fatalf("%s %q parsed as %d", v.name, v.raw, v.got)
			}
		}
		cj, gj, err := EncodeConfig(c)
		if err != nil {
			t.Fatalf("EncodeConfig: %v", err)
		}
		c2, err := ParseConfig(cj, gj)
		if err != nil {
			t.Fatalf("re-parse of the encoded config: %v\n%s\n%s", err, cj, gj)
		}
		if a, b := normalized(c), normalized(c2); !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip changed the config:\n%+v\n%+v", a, b)
		}
	})
}

// FuzzParseSynth checks model specs ("synth:SIZE[+outliers][@SEED]", a
// flag or API value): a spec without the prefix is not taken; one with it
// is refused with ErrSpec and a message quoting it, or parses to a known
// size that prints back to a spec parsing to the same value (SplitSynth
// likewise, without the size check).
func FuzzParseSynth(f *testing.F) {
	for _, s := range []string{
		"synth:tiny", "synth:0.6b+outliers", "synth:1.7b@42", "synth:tiny-wide+outliers@7", "synth:2b", "synth:tiny+noise",
		"synth:tiny@x", "synth:", "synth:@1", "synth:+outliers", "synth:a@b+outliers@5", "synth:tiny@18446744073709551615",
		"synth:tiny@18446744073709551616", "synth:0.6b-base@007", "/models/x", "synth", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		for _, parse := range []func(string) (Synth, bool, error){ParseSynth, SplitSynth} {
			s, ok, err := parse(spec)
			if !strings.HasPrefix(spec, SynthPrefix) {
				if ok || err != nil {
					t.Fatalf("%q: ok %v, err %v; want neither", spec, ok, err)
				}
				continue
			}
			if !ok {
				t.Fatalf("%q: not taken", spec)
			}
			if err != nil {
				if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), fmt.Sprintf("%q", spec)) {
					t.Fatalf("%q: error %v does not quote the spec", spec, err)
				}
				continue
			}
			if s.Size == "" {
				t.Fatalf("%q: no size", spec)
			}
			back, ok, err := parse(s.String())
			if !ok || err != nil || back != s {
				t.Fatalf("%q parsed to %+v, printed as %q, which parses to %+v, %v, %v", spec, s, s.String(), back, ok, err)
			}
		}
		if s, ok, err := ParseSynth(spec); ok && err == nil && !slices.Contains(synthSizes, s.Size) {
			t.Fatalf("%q: unknown size %q accepted", spec, s.Size)
		}
	})
}
