package core

// NoID marks an absent track in a PromptRow.
const NoID int32 = -1

// PromptRow is one talker input row as a recipe: the sum of a text-track
// part (a text-vocabulary id through the text path: text_embedding then
// text_projection) and a codec-track part (a row of the talker's
// codec_embedding). Either part may be NoID; never both.
type PromptRow struct {
	Text  int32 // text-vocabulary id, or NoID
	Codec int32 // codec_embedding row, or NoID
}

// Prompt is a request's talker input as recipes: the prefill rows, then the
// trailing text ids added to the talker input one per frame (frame t adds
// Trailing[t]); once they are used up every frame adds Pad (tts_pad).
type Prompt struct {
	Rows     []PromptRow
	Trailing []int32
	Pad      int32
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
	if len(r.TextIDs) == 0 {
		return Prompt{}, invalid("request %q: no text token ids", r.ID)
	}
	control := make([]int32, 0, 7)
	if lang >= 0 {
		control = append(control, ids.CodecThink, ids.CodecThinkBos, lang, ids.CodecThinkEos)
	} else {
		control = append(control, ids.CodecNoThink, ids.CodecThinkBos, ids.CodecThinkEos)
	}
	if hasSpk {
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
	}
	p := Prompt{Pad: ids.TTSPad}
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
