package text

import (
	"errors"
	"fmt"
	"slices"
)

// ErrEmptyText is wrapped by the error for text with nothing to speak.
var ErrEmptyText = errors.New("text: empty")

// Qwen3-TTS's chat-template pieces (qwen_tts/inference/qwen3_tts_model.py).
const (
	imStart = "<|im_start|>"
	imEnd   = "<|im_end|>"
)

// PromptIDs returns the ids the Qwen3-TTS prompt takes for text: the
// upstream wrapping "<|im_start|>assistant\n{text}<|im_end|>\n<|im_start|>assistant\n"
// tokenized as one string, role = its first 3 ids, ids = those between the
// role and the 5-id tail. Tokenizing the wrapping as one string matters at
// the text's edges (a leading newline joins the role's "\n").
//
// Added tokens are matched in the template only: the user's text is spelled
// by BPE even where it writes a control token literally, so ids never hold
// an added-token id (upstream matches them anywhere, which lets user text
// rewrite the prompt). Text that is empty, or that leaves no ids of its
// own, is an error wrapping ErrEmptyText; invalid UTF-8 one wrapping
// ErrInvalidText.
func (t *Tokenizer) PromptIDs(text string) (role [3]int32, ids []int32, err error) {
	if text == "" {
		return role, nil, fmt.Errorf("%w: field text has nothing to speak", ErrEmptyText)
	}
	start, end, err := t.templateIDs()
	if err != nil {
		return role, nil, err
	}
	all := []int32{start}
	if all, err = t.encode(all, "assistant\n"+text, false); err != nil {
		return role, nil, fmt.Errorf("field text: %w", err)
	}
	all = append(all, end)
	if all, err = t.encode(all, "\n", false); err != nil {
		return role, nil, err
	}
	all = append(all, start)
	if all, err = t.encode(all, "assistant\n", false); err != nil {
		return role, nil, err
	}
	tail := all[len(all)-5:]
	if len(all) < 3+5 || tail[0] != end || tail[2] != start {
		return role, nil, fmt.Errorf("text: the template's tail %v is not <|im_end|> \\n <|im_start|> assistant \\n (%s)", tail, t.source)
	}
	copy(role[:], all[:3])
	ids = all[3 : len(all)-5]
	if len(ids) == 0 {
		return role, nil, fmt.Errorf("%w: field text %q leaves no tokens of its own in the template", ErrEmptyText, text)
	}
	return role, slices.Clip(ids), nil
}

// RefTextIDs returns the ids a voice clone's reference transcript takes in
// an in-context prompt: the upstream wrapping
// "<|im_start|>assistant\n{ref}<|im_end|>\n" tokenized as one string,
// without its first 3 ids (the role) and its last 2 (<|im_end|> "\n"), as
// upstream's ref_ids[:, 3:-2]. Added tokens are matched in the template
// only, as PromptIDs does. A transcript that is empty or leaves no ids of
// its own is an error wrapping ErrEmptyText; invalid UTF-8 one wrapping
// ErrInvalidText.
func (t *Tokenizer) RefTextIDs(ref string) ([]int32, error) {
	if ref == "" {
		return nil, fmt.Errorf("%w: field ref_text is empty", ErrEmptyText)
	}
	start, end, err := t.templateIDs()
	if err != nil {
		return nil, err
	}
	all := []int32{start}
	if all, err = t.encode(all, "assistant\n"+ref, false); err != nil {
		return nil, fmt.Errorf("field ref_text: %w", err)
	}
	all = append(all, end)
	if all, err = t.encode(all, "\n", false); err != nil {
		return nil, err
	}
	if len(all) < 3+2 || all[len(all)-2] != end {
		return nil, fmt.Errorf("text: the reference template's tail %v is not <|im_end|> \\n (%s)", all[max(0, len(all)-2):], t.source)
	}
	ids := all[3 : len(all)-2]
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: field ref_text %q leaves no tokens of its own in the template", ErrEmptyText, ref)
	}
	return slices.Clip(ids), nil
}

// InstructIDs returns the ids of the instruction wrapping
// "<|im_start|>user\n{instruct}<|im_end|>\n" tokenized as one string (all
// of them enter the prompt), added tokens matched in the template only.
func (t *Tokenizer) InstructIDs(instruct string) ([]int32, error) {
	if instruct == "" {
		return nil, fmt.Errorf("%w: field instruct is empty", ErrEmptyText)
	}
	start, end, err := t.templateIDs()
	if err != nil {
		return nil, err
	}
	ids := []int32{start}
	if ids, err = t.encode(ids, "user\n"+instruct, false); err != nil {
		return nil, fmt.Errorf("field instruct: %w", err)
	}
	ids = append(ids, end)
	return t.encode(ids, "\n", false)
}

// templateIDs returns the ids of <|im_start|> and <|im_end|>.
func (t *Tokenizer) templateIDs() (start, end int32, err error) {
	start, ok1 := t.addedID[imStart]
	end, ok2 := t.addedID[imEnd]
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("text: tokenizer %s has no added tokens %s and %s", t.source, imStart, imEnd)
	}
	return start, end, nil
}
