package testvectors

import (
	"errors"
	"path/filepath"
	"sync"

	"github.com/omni-tts/omni/text"
)

// textCache holds the tokenizers a run has loaded, by directory, so the
// hundreds of cases of a suite load the vocabulary once.
type textCache struct {
	mu sync.Mutex
	m  map[string]*text.Tokenizer
}

// tokenizer returns the tokenizer of dir: its files, or the built-in
// Qwen3-TTS tokenizer when builtin is set and dir has none.
func (e *Env) tokenizer(dir string, builtin bool) (*text.Tokenizer, error) {
	load := func() (*text.Tokenizer, error) {
		t, err := text.Load(dir)
		if builtin && errors.Is(err, text.ErrNoTokenizer) {
			return text.Builtin()
		}
		return t, err
	}
	if e == nil {
		return load()
	}
	e.texts.mu.Lock()
	defer e.texts.mu.Unlock()
	if t, ok := e.texts.m[dir]; ok {
		return t, nil
	}
	t, err := load()
	if err != nil {
		return nil, err
	}
	if e.texts.m == nil {
		e.texts.m = map[string]*text.Tokenizer{}
	}
	e.texts.m[dir] = t
	return t, nil
}

// runText checks the tokenizer: encode(text) with added tokens matched as
// Hugging Face matches them, compared exactly with expect_ids.
func runText(c *Case, env *Env) error {
	var dir, s string
	var want []int32
	if err := c.Decode("tokenizer", &dir); err != nil {
		return err
	}
	if err := c.Decode("text", &s); err != nil {
		return err
	}
	if err := c.Decode("expect_ids", &want); err != nil {
		return err
	}
	tk, err := env.tokenizer(filepath.Join(filepath.Dir(c.Path), dir), false)
	if err != nil {
		return c.Errorf("tokenizer", "%v", err)
	}
	got, err := tk.Encode(s)
	if err != nil {
		return c.Errorf("text", "%v", err)
	}
	return compareIDs(c, "expect_ids", got, want)
}

// compareIDs reports the first difference of two id lists.
func compareIDs(c *Case, field string, got, want []int32) error {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return c.Errorf(field, "[%d] = %d, want %d (got %v, want %v)", i, got[i], want[i], got, want)
		}
	}
	if len(got) != len(want) {
		return c.Errorf(field, "%d ids, want %d (got %v, want %v)", len(got), len(want), got, want)
	}
	return nil
}
