package text

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// writeDir writes files into a fresh directory.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// byteVocab returns vocab.json entries for all 256 bytes (ids 0..255, in
// the byte-level alphabet) plus extra tokens from id 256 on.
func byteVocab(extra ...string) string {
	var b strings.Builder
	b.WriteString("{")
	for c := 0; c < 256; c++ {
		if c > 0 {
			b.WriteString(",")
		}
		b.WriteString(quote(string(byteRunes[c])) + ":" + itoa(c))
	}
	for i, e := range extra {
		b.WriteString("," + quote(e) + ":" + itoa(256+i))
	}
	b.WriteString("}")
	return b.String()
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}
func itoa(i int) string { return strconv.Itoa(i) }

func TestLoadRefusesInconsistentFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"merge names unknown token", map[string]string{"vocab.json": byteVocab("ab"), "merges.txt": "#version: 0.2\na b\nq zz\n"}, `merges.txt: line 3: merge "q" "zz" names unknown token "zz"`},
		{"merge result unknown", map[string]string{"vocab.json": byteVocab(), "merges.txt": "a b\n"}, `makes "ab", which is not in the vocabulary`},
		{"merge malformed", map[string]string{"vocab.json": byteVocab("ab"), "merges.txt": "a b c\n"}, "merges.txt: line 1"},
		{"duplicate id", map[string]string{"vocab.json": `{"a": 1, "b": 1}`, "merges.txt": ""}, "vocab.json: duplicate id 1"},
		{"added id disagrees", map[string]string{"vocab.json": byteVocab("ab"), "merges.txt": "a b\n",
			"tokenizer_config.json": `{"added_tokens_decoder": {"300": {"content": "ab", "special": true}}}`}, `added token "ab": id 300 disagrees with its vocabulary id 256`},
		{"added id taken", map[string]string{"vocab.json": byteVocab("ab"), "merges.txt": "a b\n",
			"tokenizer_config.json": `{"added_tokens_decoder": {"256": {"content": "<|x|>", "special": true}}}`}, `tokenizer_config.json: added token "<|x|>": id 256 is the vocabulary's token "ab"`},
		{"missing byte", map[string]string{"vocab.json": `{"a": 0}`, "merges.txt": ""}, "no token for byte 0x00"},
		{"malformed json", map[string]string{"vocab.json": `{"a": `, "merges.txt": ""}, "vocab.json: malformed"},
		{"tokenizer.json other pattern", map[string]string{"tokenizer.json": `{"normalizer": {"type": "NFC"}, "pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {}, "merges": []}}`}, "pre_tokenizer is not Split(Qwen2 pattern)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeDir(t, tc.files))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrBadTokenizer) {
				t.Fatalf("Load: %v, want an ErrBadTokenizer containing %q", err, tc.want)
			}
		})
	}
	if _, err := Load(t.TempDir()); !errors.Is(err, ErrNoTokenizer) {
		t.Fatalf("Load(empty dir) = %v, want ErrNoTokenizer", err)
	}
}

// TestLoadTokenizerJSON assembles a Hugging Face tokenizer.json (merges as
// pairs, as tokenizers 0.20+ writes them) from the suite's files and checks
// that it tokenizes the suite as the vocab.json + merges.txt layout does:
// both are compared with Hugging Face's ids.
func TestLoadTokenizerJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10 MB tokenizer.json")
	}
	dir := filepath.Join(suiteDir, "tokenizer")
	vocab, err1 := os.ReadFile(filepath.Join(dir, "vocab.json"))
	merges, err2 := os.ReadFile(filepath.Join(dir, "merges.txt"))
	cfg, err3 := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	var dec struct {
		Added map[string]struct {
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens_decoder"`
	}
	if err := json.Unmarshal(cfg, &dec); err != nil {
		t.Fatal(err)
	}
	var added []map[string]any
	for id, a := range dec.Added {
		n, _ := strconv.Atoi(id)
		added = append(added, map[string]any{"id": n, "content": a.Content, "special": a.Special, "lstrip": false, "rstrip": false, "single_word": false, "normalized": false})
	}
	var pairs [][2]string
	for i, line := range strings.Split(strings.TrimSpace(string(merges)), "\n") {
		if i == 0 && strings.HasPrefix(line, "#version") {
			continue
		}
		l, r, _ := strings.Cut(line, " ")
		pairs = append(pairs, [2]string{l, r})
	}
	tj := map[string]any{
		"added_tokens": added,
		"normalizer":   map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": Qwen2Pattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		}},
		"model": map[string]any{"type": "BPE", "vocab": json.RawMessage(vocab), "merges": pairs},
	}
	body, err := json.Marshal(tj)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := Load(writeDir(t, map[string]string{"tokenizer.json": string(body)}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range suiteCases(t) {
		if got, err := tk.Encode(c.Text); err != nil || !slices.Equal(got, c.ExpectIDs) {
			t.Errorf("%s: tokenizer.json gives %v (%v), want %v", c.Name, got, err, c.ExpectIDs)
		}
	}
}
