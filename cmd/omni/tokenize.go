package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/omni-tts/omni/text"
)

// tokenizeCmd prints the token ids of a text, or (--decode) the text of ids.
type tokenizeCmd struct {
	Text      string `arg:"" optional:"" help:"The text to tokenize (added tokens such as <|im_end|> written literally are matched, as Hugging Face's encode does)."`
	Decode    string `help:"Comma-separated ids to decode to text instead." placeholder:"1,2,3"`
	Tokenizer string `help:"A checkpoint or tokenizer directory (vocab.json + merges.txt, or tokenizer.json); empty uses the built-in Qwen3-TTS tokenizer." type:"path"`
	Prompt    bool   `help:"Print the role and text ids the Qwen3-TTS prompt takes (user text never matched as control tokens) instead."`
}

// Run implements "omni tokenize".
func (c *tokenizeCmd) Run(g *Globals, _ context.Context) error {
	tk, err := loadTokenizer(c.Tokenizer)
	if err != nil {
		return err
	}
	if c.Decode != "" {
		var ids []int32
		for i, f := range strings.Split(c.Decode, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
			if err != nil {
				return usageErrorf("tokenize: --decode item %d %q is not an id", i, f)
			}
			ids = append(ids, int32(v))
		}
		s, err := tk.Decode(ids)
		if err != nil {
			return err
		}
		fmt.Fprintln(g.Stdout, s)
		return nil
	}
	if c.Text == "" {
		return errors.New("tokenize: give a text or --decode ids")
	}
	if c.Prompt {
		role, ids, err := tk.PromptIDs(c.Text)
		if err != nil {
			return err
		}
		fmt.Fprintf(g.Stdout, "role %s\ntext %s\n", joinIDs(role[:]), joinIDs(ids))
		return nil
	}
	ids, err := tk.Encode(c.Text)
	if err != nil {
		return err
	}
	fmt.Fprintln(g.Stdout, joinIDs(ids))
	return nil
}

// loadTokenizer loads the tokenizer of dir, or the built-in one when dir is
// empty or holds no tokenizer files.
func loadTokenizer(dir string) (*text.Tokenizer, error) {
	if dir == "" {
		return text.Builtin()
	}
	t, err := text.Load(dir)
	if errors.Is(err, text.ErrNoTokenizer) {
		return text.Builtin()
	}
	return t, err
}

// joinIDs writes ids comma-separated.
func joinIDs(ids []int32) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(id)))
	}
	return b.String()
}
