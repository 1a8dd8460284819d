package core

// NoID marks an absent track in a PromptRow.
const NoID int32 = -1

// CodecPart says what the codec track of a PromptRow is.
type CodecPart uint8

const (
	// CodecRow: Codec is a row of the talker's codec_embedding, or NoID.
	CodecRow CodecPart = iota
	// CodecXVector: the codec track is the prompt's Clone.XVector (a voice
	// clone's speaker row); Codec is 0.
	CodecXVector
	// CodecRefFrame: the codec track is the sum of the 16 codebook
	// embeddings of reference frame Codec of the prompt's Clone (talker
	// codec_embedding for codebook 0, the code predictor's
	// codec_embedding[g-1] for codebook g, as Model.FrameEmbed sums a
	// generated frame).
	CodecRefFrame
)

// PromptRow is one talker input row as a recipe: the sum of a text-track
// part (a text-vocabulary id through the text path: text_embedding then
// text_projection) and a codec-track part (by Part: a row of the talker's
// codec_embedding, the clone's x-vector, or a reference frame's summed
// embeddings). Text may be NoID, and Codec in a CodecRow; never both.
type PromptRow struct {
	Text  int32     // text-vocabulary id, or NoID
	Codec int32     // codec_embedding row or NoID (CodecRow), reference frame (CodecRefFrame)
	Part  CodecPart // what Codec names; the zero value is CodecRow
}

// Prompt is a request's talker input as recipes: the prefill rows, then the
// trailing text ids added to the talker input one per frame (frame t adds
// Trailing[t]); once they are used up every frame adds Pad (tts_pad).
type Prompt struct {
	Rows     []PromptRow
	Trailing []int32
	Pad      int32
	// Clone is the voice reference the x-vector and reference-frame rows
	// read (the request's), nil without one.
	Clone *Clone
}

// BuildPrompt builds the Qwen3-TTS talker prompt of r (docs/MODEL.md §4),
// r validated against ids:
//
//	instruct rows         the instruction's ids, when given   (no codec part)
//	3 role rows           <|im_start|> assistant \n          (no codec part)
//	control rows          tts_pad … tts_pad, tts_bos  +  think, think_bos, lang, think_eos[, speaker], codec_pad
//	                      (auto language: nothink, think_bos, think_eos)
//	streaming layout      text[0] + codec_bos;  trailing text[1:], tts_eos
//	non-streaming layout  text[i] + codec_pad for every i, tts_eos + codec_pad, tts_pad + codec_bos;  no trailing text
//
// The control rows' text track is tts_pad on every row but the last, which
// carries tts_bos (over codec_pad).
//
// With r.Clone the speaker row's codec track is the x-vector (CodecXVector);
// in x-vector mode the layouts are the ones above, in in-context mode the
// rows after the control rows are those of clonePrompt.
func BuildPrompt(r *Request, ids *SpecialIDs) (Prompt, error) {
	lang, err := r.languageID(ids)
	if err != nil {
		return Prompt{}, err
	}
	if err := r.validateTextParts(ids); err != nil {
		return Prompt{}, err
	}
	spk, hasSpk, err := r.speakerRow(ids)
	if err != nil {
		return Prompt{}, err
	}
	if err := r.validateClone(ids); err != nil {
		return Prompt{}, err
	}
	if len(r.TextIDs) == 0 {
		return Prompt{}, invalid("request %q: no text token ids", r.ID)
	}
	control := make([]int32, 0, 7)
	if lang >= 0 {
		control = append(control, ids.CodecThink, ids.CodecThinkBos, lang, ids.CodecThinkEos)
	} else {
		control = append(control, ids.CodecNoThink, ids.CodecThinkBos, ids.CodecThinkEos)
	}
	if hasSpk { // never with a clone (validateClone), whose row is added below
		control = append(control, spk)
	}
	control = append(control, ids.CodecPad)

	n := len(r.TextIDs)
	rows := make([]PromptRow, 0, len(r.InstructIDs)+3+len(control)+n+2)
	for _, t := range r.InstructIDs {
		rows = append(rows, PromptRow{Text: t, Codec: NoID})
	}
	role := []int32{ids.ImStart, ids.Assistant, ids.Newline}
	if r.RoleIDs != nil {
		role = r.RoleIDs
	}
	for _, t := range role {
		rows = append(rows, PromptRow{Text: t, Codec: NoID})
	}
	for i, c := range control {
		t := ids.TTSPad
		if i == len(control)-1 {
			t = ids.TTSBos
		}
		rows = append(rows, PromptRow{Text: t, Codec: c})
		if r.Clone != nil && i == len(control)-2 {
			rows = append(rows, PromptRow{Text: ids.TTSPad, Codec: 0, Part: CodecXVector})
		}
	}
	p := Prompt{Pad: ids.TTSPad, Clone: r.Clone}
	if r.Clone.InContext() {
		p.Rows, p.Trailing = inContextRows(rows, r, ids)
		return p, nil
	}
	switch r.Layout {
	case NonStreaming:
		for _, t := range r.TextIDs {
			rows = append(rows, PromptRow{Text: t, Codec: ids.CodecPad})
		}
		rows = append(rows,
			PromptRow{Text: ids.TTSEos, Codec: ids.CodecPad},
			PromptRow{Text: ids.TTSPad, Codec: ids.CodecBos})
	default:
		rows = append(rows, PromptRow{Text: r.TextIDs[0], Codec: ids.CodecBos})
		p.Trailing = make([]int32, 0, n)
		p.Trailing = append(p.Trailing, r.TextIDs[1:]...)
		p.Trailing = append(p.Trailing, ids.TTSEos)
	}
	p.Rows = rows
	return p, nil
}

// TextAt returns the text id added to the talker input after frame t
// (0-based): the trailing text while it lasts, then tts_pad.
func (p *Prompt) TextAt(t int) int32 {
	if t < len(p.Trailing) {
		return p.Trailing[t]
	}
	return p.Pad
}
