package text

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokenizerJSONFor is a small tokenizer.json holding vocab (a vocab.json
// body), the merges as pairs and the added tokens.
func tokenizerJSONFor(vocab string, merges [][2]string, added ...map[string]any) []byte {
	b, err := json.Marshal(map[string]any{
		"added_tokens": added,
		"normalizer":   map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": Qwen2Pattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		}},
		"model": map[string]any{"type": "BPE", "vocab": json.RawMessage(vocab), "merges": merges},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzLoad checks the tokenizer files of a checkpoint directory
// (vocab.json, merges.txt, tokenizer_config.json, tokenizer.json; which
// exist is a bit mask): they are refused with ErrBadTokenizer naming the
// file at fault (ErrNoTokenizer only when neither layout is there), or
// give a tokenizer that spells every text back: Decode(EncodeText(s)) is
// NFC(s), every id Encode gives decodes, and every added token is found by
// its content.
func FuzzLoad(f *testing.F) {
	cfg := `{"added_tokens_decoder": {"300": {"content": "<|im_end|>", "special": true}, "301": {"content": "<tts_pad>"}}}`
	ab := byteVocab("ab", "abc", "Ġt")
	for _, s := range []struct {
		vocab, merges, cfg string
		tj                 []byte
		mask               uint8
	}{
		{vocab: ab, merges: "#version: 0.2\na b\nab c\nĠ t\n", cfg: cfg, mask: 7},
		{vocab: ab, merges: "a b\n", mask: 3},
		{vocab: byteVocab("ab"), merges: "#version: 0.2\na b\nq zz\n", mask: 3},
		{vocab: byteVocab(), merges: "a b\n", mask: 3},
		{vocab: byteVocab("ab"), merges: "a b c\n", mask: 3},
		{vocab: `{"a": 1, "b": 1}`, mask: 3},
		{vocab: byteVocab("ab"), merges: "a b\n", cfg: `{"added_tokens_decoder": {"300": {"content": "ab", "special": true}}}`, mask: 7},
		{vocab: byteVocab("ab"), merges: "a b\n", cfg: `{"added_tokens_decoder": {"256": {"content": "<|x|>", "special": true}}}`, mask: 7},
		{vocab: `{"a": 0}`, mask: 3},
		{vocab: `{"a": `, mask: 3},
		{tj: []byte(`{"normalizer": {"type": "NFC"}, "pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {}, "merges": []}}`), mask: 8},
		{tj: tokenizerJSONFor(ab, [][2]string{{"a", "b"}, {"ab", "c"}, {"Ġ", "t"}},
			map[string]any{"id": 300, "content": "<|im_end|>", "special": true}), cfg: cfg, mask: 12},
		{tj: tokenizerJSONFor(ab, [][2]string{{"a", "b"}}), mask: 8},
		// an id beyond int32: it must not wrap onto a free id (300)
		{tj: tokenizerJSONFor(ab, nil, map[string]any{"id": 1<<32 + 300, "content": "<x>"}), mask: 8},
		{tj: tokenizerJSONFor(ab, nil, map[string]any{"id": -1<<32 + 300, "content": "<x>"}), mask: 8},
		{mask: 0},
	} {
		f.Add([]byte(s.vocab), []byte(s.merges), []byte(s.cfg), s.tj, s.mask, "Hello, world! ab abc<|im_end|>")
	}
	f.Fuzz(func(t *testing.T, vocab, merges, config, tokenizerJSON []byte, mask uint8, s string) {
		fsys := fstest.MapFS{}
		for i, file := range []struct {
			name string
			data []byte
		}{{"vocab.json", vocab}, {"merges.txt", merges}, {"tokenizer_config.json", config}, {"tokenizer.json", tokenizerJSON}} {
			if mask&(1<<i) != 0 {
				fsys[file.name] = &fstest.MapFile{Data: file.data}
			}
		}
		tk, err := LoadFS(fsys, "fuzz")
		if err != nil {
			switch {
			case errors.Is(err, ErrNoTokenizer):
				if mask&8 != 0 || mask&3 == 3 {
					t.Fatalf("files %04b: %v", mask, err)
				}
			case errors.Is(err, ErrBadTokenizer):
				msg := err.Error()
				named := false
				for _, name := range []string{"vocab.json", "merges.txt", "tokenizer_config.json", "tokenizer.json"} {
					named = named || strings.Contains(msg, "fuzz/"+name+": ")
				}
				if !named {
					t.Fatalf("error %q names no file", msg)
				}
			default:
				t.Fatalf("error %v wraps neither ErrBadTokenizer nor ErrNoTokenizer", err)
			}
			return
		}
		// the added tokens' ids, as the files write them (encoding/json alone)
		want := map[string]int64{}
		if mask&3 != 3 {
			var tj struct {
				Added []struct {
					ID      int64  `json:"id"`
					Content string `json:"content"`
				} `json:"added_tokens"`
			}
			if err := json.Unmarshal(tokenizerJSON, &tj); err != nil {
				t.Fatalf("tokenizer.json accepted, but encoding/json refuses it: %v", err)
			}
			for _, a := range tj.Added {
				want[a.Content] = a.ID
			}
		}
		if mask&4 != 0 {
			var c struct {
				Added map[string]struct {
					Content string `json:"content"`
				} `json:"added_tokens_decoder"`
			}
			if err := json.Unmarshal(config, &c); err != nil {
				t.Fatalf("tokenizer_config.json accepted, but encoding/json refuses it: %v", err)
			}
			for k, a := range c.Added {
				id, err := strconv.ParseInt(k, 10, 64)
				if err != nil {
					t.Fatalf("added_tokens_decoder key %q accepted", k)
				}
				want[a.Content] = id
			}
		}
		for content, id := range want {
			if got, ok := tk.TokenID(content); !ok || int64(got) != id {
				t.Fatalf("added token %q: the file says id %d, the tokenizer %d (%v)", content, id, got, ok)
			}
		}
		for _, a := range tk.AddedTokens() {
			if id, ok := tk.TokenID(a.Content); !ok || id != a.ID || a.ID < 0 || int(a.ID) >= tk.Size() {
				t.Fatalf("added token %+v: TokenID gives %d, %v (size %d)", a, id, ok, tk.Size())
			}
		}
		if !utf8.ValidString(s) {
			return
		}
		ids, err := tk.EncodeText(s)
		if err != nil {
			t.Fatalf("EncodeText(%q): %v", s, err)
		}
		if got, err := tk.Decode(ids); err != nil || got != norm.NFC.String(s) {
			t.Fatalf("Decode(EncodeText(%q)) = %q, %v", s, got, err)
		}
		ids, err = tk.Encode(s)
		if err != nil {
			t.Fatalf("Encode(%q): %v", s, err)
		}
		if _, err := tk.Decode(ids); err != nil {
			t.Fatalf("Encode(%q) gives ids %v that do not decode: %v", s, ids, err)
		}
	})
}
