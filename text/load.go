package text

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNoTokenizer is wrapped by Load's error for a directory with neither
// vocab.json + merges.txt nor tokenizer.json (callers then fall back to
// Builtin).
var ErrNoTokenizer = errors.New("text: no tokenizer files")

// ErrBadTokenizer is wrapped by the error for a malformed or inconsistent
// tokenizer file.
var ErrBadTokenizer = errors.New("text: bad tokenizer")

// Load reads the tokenizer of a checkpoint directory: vocab.json +
// merges.txt (+ tokenizer_config.json for the added tokens) when present,
// else tokenizer.json. A malformed or inconsistent file is refused by name.
func Load(dir string) (*Tokenizer, error) {
	return LoadFS(os.DirFS(dir), dir)
}

// LoadFS is Load over a file system; name labels it in messages.
func LoadFS(fsys fs.FS, name string) (*Tokenizer, error) {
	vocab, errV := fs.ReadFile(fsys, "vocab.json")
	merges, errM := fs.ReadFile(fsys, "merges.txt")
	cfg, errC := fs.ReadFile(fsys, "tokenizer_config.json")
	if errC != nil && !errors.Is(errC, fs.ErrNotExist) {
		return nil, fmt.Errorf("text: %s: %w", filepath.Join(name, "tokenizer_config.json"), errC)
	}
	if errC != nil {
		cfg = nil
	}
	if errV == nil && errM == nil {
		b, err := newBuilder(name)
		if err != nil {
			return nil, err
		}
		if err := b.vocabJSON(vocab); err != nil {
			return nil, err
		}
		if err := b.mergesTxt(merges); err != nil {
			return nil, err
		}
		if cfg != nil {
			if err := b.addedFromConfig(cfg); err != nil {
				return nil, err
			}
		}
		return b.finish()
	}
	tj, errT := fs.ReadFile(fsys, "tokenizer.json")
	if errT != nil {
		if errors.Is(errT, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w in %s: want vocab.json + merges.txt or tokenizer.json", ErrNoTokenizer, name)
		}
		return nil, fmt.Errorf("text: %s: %w", filepath.Join(name, "tokenizer.json"), errT)
	}
	b, err := newBuilder(name)
	if err != nil {
		return nil, err
	}
	if err := b.tokenizerJSON(tj); err != nil {
		return nil, err
	}
	if cfg != nil {
		if err := b.addedFromConfig(cfg); err != nil {
			return nil, err
		}
	}
	return b.finish()
}

// builder assembles a Tokenizer, checking each file as it comes.
type builder struct {
	t     *Tokenizer
	name  string
	file  string           // the file being read, for messages
	vfile string           // the file the vocabulary came from
	buf   []byte           // scratch for a merge's raw bytes
	ids   map[int32]string // id → token as written (regular tokens)
	added map[int32]AddedToken
}

func newBuilder(name string) (*builder, error) {
	return &builder{
		t:     &Tokenizer{vocab: map[string]int32{}, merges: map[uint64]merge{}, addedID: map[string]int32{}, source: name},
		name:  name,
		ids:   map[int32]string{},
		added: map[int32]AddedToken{},
	}, nil
}

// errf returns a file-naming error wrapping ErrBadTokenizer.
func (b *builder) errf(format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrBadTokenizer, filepath.Join(b.name, b.file), fmt.Sprintf(format, args...))
}

// vocabJSON reads vocab.json: {"token": id}.
func (b *builder) vocabJSON(data []byte) error {
	b.file = "vocab.json"
	var m map[string]int64
	if err := json.Unmarshal(data, &m); err != nil {
		return b.errf("malformed: %v", err)
	}
	return b.addVocab(m)
}

// addVocab adds regular tokens spelled in the byte-level alphabet.
func (b *builder) addVocab(m map[string]int64) error {
	b.vfile = b.file
	if len(m) == 0 {
		return b.errf("empty vocabulary")
	}
	if len(b.t.vocab) == 0 {
		b.t.vocab, b.ids = make(map[string]int32, len(m)), make(map[int32]string, len(m))
	}
	for tok, id := range m {
		if id < 0 || id >= 1<<24 {
			return b.errf("token %q: id %d outside [0, %d)", tok, id, 1<<24)
		}
		if prev, dup := b.ids[int32(id)]; dup {
			a, c := prev, tok
			if c < a {
				a, c = c, a
			}
			return b.errf("duplicate id %d: given to both %q and %q", id, a, c)
		}
		raw, ok := unmapBytes(tok)
		if !ok {
			return b.errf("token %q (id %d) is not spelled in the byte-level alphabet", tok, id)
		}
		b.ids[int32(id)] = tok
		b.t.vocab[string(raw)] = int32(id)
	}
	return nil
}

// mergesTxt reads merges.txt: an optional "#version" line, then one rule
// "left right" per line, highest priority first.
func (b *builder) mergesTxt(data []byte) error {
	b.file = "merges.txt"
	b.growMerges(bytes.Count(data, []byte{'\n'}) + 1)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	line, rank := 0, int32(0)
	for sc.Scan() {
		line++
		s := strings.TrimRight(sc.Text(), "\r")
		if (line == 1 && strings.HasPrefix(s, "#version")) || s == "" {
			continue
		}
		l, r, ok := strings.Cut(s, " ")
		if !ok || l == "" || r == "" || strings.Contains(r, " ") {
			return b.errf("line %d: %q is not two tokens separated by one space", line, s)
		}
		if err := b.addMerge(l, r, rank, "line "+strconv.Itoa(line)); err != nil {
			return err
		}
		rank++
	}
	if err := sc.Err(); err != nil {
		return b.errf("%v", err)
	}
	return nil
}

// growMerges sizes the merge table for n rules when it is still empty.
func (b *builder) growMerges(n int) {
	if len(b.t.merges) == 0 {
		b.t.merges = make(map[uint64]merge, n)
	}
}

// addMerge adds the rule merging l and r (byte-level spellings) at rank.
func (b *builder) addMerge(l, r string, rank int32, where string) error {
	buf, ok1 := appendUnmapped(b.buf[:0], l)
	nl := len(buf)
	buf, ok2 := appendUnmapped(buf, r)
	b.buf = buf
	if !ok1 || !ok2 {
		return b.errf("%s: merge %q %q is not spelled in the byte-level alphabet", where, l, r)
	}
	li, ok := b.t.vocab[string(buf[:nl])]
	if !ok {
		return b.errf("%s: merge %q %q names unknown token %q", where, l, r, l)
	}
	ri, ok := b.t.vocab[string(buf[nl:])]
	if !ok {
		return b.errf("%s: merge %q %q names unknown token %q", where, l, r, r)
	}
	mi, ok := b.t.vocab[string(buf)]
	if !ok {
		return b.errf("%s: merge %q %q makes %q, which is not in the vocabulary", where, l, r, l+r)
	}
	k := pairKey(li, ri)
	if _, dup := b.t.merges[k]; dup {
		return b.errf("%s: merge %q %q repeated", where, l, r)
	}
	b.t.merges[k] = merge{rank: rank, id: mi}
	return nil
}

// addedJSON is one added token as tokenizer_config.json and tokenizer.json
// write it.
type addedJSON struct {
	ID         *int64 `json:"id"`
	Content    string `json:"content"`
	Special    bool   `json:"special"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	SingleWord bool   `json:"single_word"`
	Normalized bool   `json:"normalized"`
}

// addedFromConfig reads tokenizer_config.json's added_tokens_decoder.
func (b *builder) addedFromConfig(data []byte) error {
	b.file = "tokenizer_config.json"
	var cfg struct {
		Added map[string]addedJSON `json:"added_tokens_decoder"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return b.errf("malformed: %v", err)
	}
	keys := make([]string, 0, len(cfg.Added))
	for k := range cfg.Added {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		id, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return b.errf("added_tokens_decoder key %q is not an id", k)
		}
		if err := b.addAdded(id, cfg.Added[k]); err != nil {
			return err
		}
	}
	return nil
}

// addAdded adds one added token, refusing one that disagrees with the
// vocabulary or with an added token read before. The id is checked as the
// file writes it (an int64: 2^32 + 300 must not pass as 300).
func (b *builder) addAdded(id64 int64, a addedJSON) error {
	switch {
	case a.Content == "":
		return b.errf("added token id %d has empty content", id64)
	case id64 < 0 || id64 >= 1<<24:
		return b.errf("added token %q: id %d outside [0, %d)", a.Content, id64, 1<<24)
	case a.LStrip || a.RStrip || a.SingleWord:
		return b.errf("added token %q (id %d): lstrip, rstrip and single_word are not supported", a.Content, id64)
	}
	id := int32(id64)
	if tok, ok := b.ids[id]; ok {
		return b.errf("added token %q: id %d is the vocabulary's token %q", a.Content, id, tok)
	}
	if vid, ok := b.t.vocab[a.Content]; ok {
		return b.errf("added token %q: id %d disagrees with its vocabulary id %d", a.Content, id, vid)
	}
	if prev, ok := b.added[id]; ok {
		if prev.Content != a.Content {
			return b.errf("added token id %d: %q here, %q before", id, a.Content, prev.Content)
		}
		return nil
	}
	if prev, ok := b.t.addedID[a.Content]; ok && prev != id {
		return b.errf("added token %q: id %d disagrees with id %d given before", a.Content, id, prev)
	}
	b.added[id] = AddedToken{ID: id, Content: a.Content, Special: a.Special}
	b.t.addedID[a.Content] = id
	return nil
}

// tokenizerJSON reads a Hugging Face tokenizer.json, refusing any pipeline
// but Qwen2's (NFC, Split by the Qwen2 pattern + ByteLevel, BPE).
func (b *builder) tokenizerJSON(data []byte) error {
	b.file = "tokenizer.json"
	var tj struct {
		Added      []addedJSON     `json:"added_tokens"`
		Normalizer json.RawMessage `json:"normalizer"`
		PreTok     json.RawMessage `json:"pre_tokenizer"`
		Model      struct {
			Type         string            `json:"type"`
			Vocab        map[string]int64  `json:"vocab"`
			Merges       []json.RawMessage `json:"merges"`
			ByteFallback bool              `json:"byte_fallback"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &tj); err != nil {
		return b.errf("malformed: %v", err)
	}
	if tj.Model.Type != "BPE" || tj.Model.ByteFallback {
		return b.errf("model.type %q (byte_fallback %v): want BPE without byte fallback", tj.Model.Type, tj.Model.ByteFallback)
	}
	if !bytes.Contains(tj.Normalizer, []byte(`"NFC"`)) {
		return b.errf("normalizer %s: want NFC", tj.Normalizer)
	}
	var pat struct {
		Pretokenizers []struct {
			Type    string `json:"type"`
			Pattern struct {
				Regex string `json:"Regex"`
			} `json:"pattern"`
		} `json:"pretokenizers"`
	}
	if err := json.Unmarshal(tj.PreTok, &pat); err != nil || len(pat.Pretokenizers) != 2 ||
		pat.Pretokenizers[0].Type != "Split" || pat.Pretokenizers[0].Pattern.Regex != Qwen2Pattern || pat.Pretokenizers[1].Type != "ByteLevel" {
		return b.errf("pre_tokenizer is not Split(Qwen2 pattern) + ByteLevel")
	}
	if err := b.addVocab(tj.Model.Vocab); err != nil {
		return err
	}
	b.growMerges(len(tj.Model.Merges))
	for i, raw := range tj.Model.Merges {
		var l, r string
		var pair []string
		var s string
		switch {
		case json.Unmarshal(raw, &s) == nil:
			var ok bool
			if l, r, ok = strings.Cut(s, " "); !ok {
				return b.errf("model.merges[%d] %q is not two tokens", i, s)
			}
		case json.Unmarshal(raw, &pair) == nil && len(pair) == 2:
			l, r = pair[0], pair[1]
		default:
			return b.errf("model.merges[%d] is neither \"a b\" nor [a, b]", i)
		}
		if err := b.addMerge(l, r, int32(i), fmt.Sprintf("model.merges[%d]", i)); err != nil {
			return err
		}
	}
	for i, a := range tj.Added {
		if a.ID == nil {
			return b.errf("added_tokens[%d] %q has no id", i, a.Content)
		}
		if err := b.addAdded(*a.ID, a); err != nil {
			return err
		}
	}
	return nil
}

// finish checks the whole and builds the id tables.
func (b *builder) finish() (*Tokenizer, error) {
	t := b.t
	n := int32(0)
	for id := range b.ids {
		n = max(n, id+1)
	}
	for id := range b.added {
		n = max(n, id+1)
	}
	t.pieces = make([]string, n)
	for raw, id := range t.vocab {
		t.pieces[id] = raw
	}
	for id, a := range b.added {
		t.pieces[id] = a.Content
		t.added = append(t.added, a)
		t.addedFirst[a.Content[0]] = true
	}
	sort.Slice(t.added, func(i, j int) bool { return t.added[i].ID < t.added[j].ID })
	for c := 0; c < 256; c++ {
		id, ok := t.vocab[string([]byte{byte(c)})]
		if !ok {
			b.file = b.vfile
			return nil, b.errf("no token for byte 0x%02x (%q): byte-level BPE needs all 256", c, string(byteRunes[c]))
		}
		t.byteID[c] = id
	}
	return t, nil
}
