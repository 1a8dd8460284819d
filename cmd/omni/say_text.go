package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/omni-tts/omni/core"
)

// maxTextBytes bounds the text omni say reads from a file or stdin.
const maxTextBytes = 16 << 20

// text returns the text to speak: the argument, or --text-file (or "-":
// stdin), refused when it is missing, given twice, too large or only
// white space (as serve refuses an empty input).
func (c *sayCmd) text(g *Globals) (string, error) {
	src := c.TextFile
	switch {
	case c.Text != "" && src != "":
		return "", usageErrorf("say: give the text as an argument or with --text-file, not both")
	case c.Text == "-":
		src = "-"
	case src == "":
		if strings.TrimSpace(c.Text) == "" {
			return "", usageErrorf("say: the text is empty (give a text, --text-file FILE or --text-file - for stdin)")
		}
		return c.Text, nil
	}
	var r io.Reader = os.Stdin
	name := "stdin"
	if src != "-" {
		f, err := os.Open(src)
		if err != nil {
			return "", fmt.Errorf("say: --text-file: %w", err)
		}
		defer f.Close()
		r, name = f, src
	}
	b, err := io.ReadAll(io.LimitReader(r, maxTextBytes+1))
	if err != nil {
		return "", fmt.Errorf("say: read %s: %w", name, err)
	}
	if len(b) > maxTextBytes {
		return "", fmt.Errorf("say: %s holds more than %d bytes of text; split it into several files", name, maxTextBytes)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("say: %s is not valid UTF-8 text", name)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", fmt.Errorf("say: %s holds no text (only white space)", name)
	}
	return string(b), nil
}

// contextInWords restates a request over the model's context
// (core.ContextError) in a user's words: the text's length in characters,
// the positions it needs against the limit, and how much text fits; other
// errors pass unchanged.
func contextInWords(cmd, text string, err error) error {
	var ce *core.ContextError
	if !errors.As(err, &ce) {
		return err
	}
	chars := utf8.RuneCountInString(text)
	fit := 0
	if p := ce.Positions(); p > 0 {
		fit = int(int64(chars) * int64(ce.Limit) / int64(p) * 9 / 10) // the same share of the text, with a margin
	}
	return fmt.Errorf("%s: the text is too long for the model: %d characters make %d prompt positions, and with up to %d frames of audio the request needs %d positions, more than the model's context of %d; split the text into parts of at most about %d characters (or lower --max-frames / --max-new-tokens)",
		cmd, chars, ce.PromptRows, ce.Frames, ce.Positions(), ce.Limit, fit)
}
