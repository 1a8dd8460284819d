package testvectors

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/omni-tts/omni/core"
)

// runPrompt builds the talker prompt of a request given as text against a
// model directory's config.json and tokenizer (the built-in Qwen3-TTS
// tokenizer when the directory has none) and compares the rows and the
// trailing text, or the refusal, with the case.
func runPrompt(c *Case, env *Env) error {
	var model, txt, layout string
	if err := c.Decode("model", &model); err != nil {
		return err
	}
	if err := c.Decode("text", &txt); err != nil {
		return err
	}
	if err := c.Decode("layout", &layout); err != nil {
		return err
	}
	in := core.TextInput{Text: txt, Layout: layout}
	for _, f := range []struct {
		name string
		v    *string
	}{{"language", &in.Language}, {"speaker", &in.Speaker}, {"instruct", &in.Instruct}} {
		if c.Has(f.name) {
			if err := c.Decode(f.name, f.v); err != nil {
				return err
			}
		}
	}
	wantErr, hasErr, err := expectError(c)
	if err != nil {
		return err
	}
	_, p, err, setup := textPrompt(c, env, filepath.Join(filepath.Dir(c.Path), model), true, in)
	if setup != nil {
		return setup
	}
	if hasErr {
		return checkRefusal(c, err, wantErr)
	}
	if err != nil {
		return c.Errorf("text", "%v", err)
	}
	var rows [][2]*int32
	var trailing []int32
	if err := c.Decode("expect_rows", &rows); err != nil {
		return err
	}
	if err := c.Decode("expect_trailing", &trailing); err != nil {
		return err
	}
	if len(p.Rows) != len(rows) {
		return c.Errorf("expect_rows", "%d rows, want %d (got %s)", len(p.Rows), len(rows), rowsString(p.Rows))
	}
	for i, w := range rows {
		g := p.Rows[i]
		if !sameID(g.Text, w[0]) || !sameID(g.Codec, w[1]) {
			return c.Errorf("expect_rows", "row %d = [%s, %s], want [%s, %s] (got %s)", i, idString(g.Text), idString(g.Codec), ptrString(w[0]), ptrString(w[1]), rowsString(p.Rows))
		}
	}
	return compareIDs(c, "expect_trailing", p.Trailing, trailing)
}

// sameID reports whether a recipe id (NoID = absent) equals a case's
// nullable id.
func sameID(got int32, want *int32) bool {
	if want == nil {
		return got == core.NoID
	}
	return got == *want
}

func idString(id int32) string {
	if id == core.NoID {
		return "null"
	}
	return strconv.Itoa(int(id))
}

func ptrString(p *int32) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(int(*p))
}

func rowsString(rows []core.PromptRow) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("[" + idString(r.Text) + "," + idString(r.Codec) + "]")
	}
	b.WriteByte(']')
	return b.String()
}
