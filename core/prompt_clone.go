package core

// inContextRows appends the in-context rows of r (a request with an
// in-context Clone) to the prefix rows (instruction, role and control rows)
// and returns the rows and the trailing text (upstream generate_icl_prompt,
// docs/MODEL.md "Clone prompts"). With
//
//	text  = ref_text_ids ‖ text_ids ‖ tts_eos        (T rows, text track)
//	codec = codec_bos ‖ ref frame 0 … ref frame R−1  (R+1 rows, codec track)
//
// the streaming layout sums the two tracks row by row over R+1 rows, the
// text track padded with tts_pad when shorter, its surplus becoming the
// trailing text; the non-streaming layout puts every text row over
// codec_pad, then every codec row under tts_pad, with no trailing text.
func inContextRows(rows []PromptRow, r *Request, ids *SpecialIDs) ([]PromptRow, []int32) {
	c := r.Clone
	R := c.RefFrames()
	text := make([]int32, 0, len(c.RefTextIDs)+len(r.TextIDs)+1)
	text = append(text, c.RefTextIDs...)
	text = append(text, r.TextIDs...)
	text = append(text, ids.TTSEos)
	codec := func(j int) PromptRow {
		if j == 0 {
			return PromptRow{Codec: ids.CodecBos}
		}
		return PromptRow{Codec: int32(j - 1), Part: CodecRefFrame}
	}
	if r.Layout == NonStreaming {
		out := make([]PromptRow, 0, len(rows)+len(text)+R+1)
		out = append(out, rows...)
		for _, t := range text {
			out = append(out, PromptRow{Text: t, Codec: ids.CodecPad})
		}
		for j := 0; j <= R; j++ {
			row := codec(j)
			row.Text = ids.TTSPad
			out = append(out, row)
		}
		return out, nil
	}
	out := make([]PromptRow, 0, len(rows)+R+1)
	out = append(out, rows...)
	for j := 0; j <= R; j++ {
		row := codec(j)
		row.Text = ids.TTSPad
		if j < len(text) {
			row.Text = text[j]
		}
		out = append(out, row)
	}
	var trailing []int32
	if len(text) > R+1 {
		trailing = text[R+1:]
	}
	return out, trailing
}

// validateClone checks r's Clone against the model: a Base model, no
// preset speaker beside it, an x-vector of the talker's hidden size with
// finite values, reference codes of whole 16-code frames inside the
// codebook, reference text ids inside the text vocabulary (required in
// in-context mode), no live text and no embedded prompt with it. Every
// error names the field.
func (r *Request) validateClone(ids *SpecialIDs) error {
	c := r.Clone
	if c == nil {
		return nil
	}
	switch {
	case ids.ModelKind != "base":
		return invalid("request %q: field clone: voice cloning needs a Base model, this one is %s", r.ID, orUnknown(ids.ModelKind))
	case r.Speaker != "" || r.SpeakerID != 0:
		return invalid("request %q: field speaker: a cloning request takes its voice from the reference, not a preset speaker (%q, id %d)", r.ID, r.Speaker, r.SpeakerID)
	case r.Embedded != nil:
		return invalid("request %q: field clone: not with an embedded prompt", r.ID)
	case r.Live && c.InContext():
		return invalid("request %q: field clone: a live request takes x-vector references only", r.ID)
	case len(c.XVector) == 0:
		return invalid("request %q: field clone.x_vector: empty", r.ID)
	case ids.Hidden > 0 && len(c.XVector) != ids.Hidden:
		return invalid("request %q: field clone.x_vector: %d values, the model's hidden size is %d", r.ID, len(c.XVector), ids.Hidden)
	}
	for i, v := range c.XVector {
		if v != v || v > maxF32 || v < -maxF32 {
			return invalid("request %q: field clone.x_vector: value [%d] = %g not finite", r.ID, i, v)
		}
	}
	if len(c.RefCodes)%Codebooks != 0 {
		return invalid("request %q: field clone.ref_codes: %d codes are not whole frames of %d", r.ID, len(c.RefCodes), Codebooks)
	}
	for i, v := range c.RefCodes {
		if v < 0 || int(v) >= ids.CodebookSize {
			return invalid("request %q: field clone.ref_codes: frame %d codebook %d = %d outside [0, %d)", r.ID, i/Codebooks, i%Codebooks, v, ids.CodebookSize)
		}
	}
	if !c.InContext() {
		return nil
	}
	if len(c.RefTextIDs) == 0 {
		return invalid("request %q: field ref_text: required with reference codes (in-context mode); give the clip's transcript or use x-vector mode", r.ID)
	}
	for i, t := range c.RefTextIDs {
		if t < 0 || int(t) >= ids.TextVocab {
			return invalid("request %q: field ref_text: id [%d] = %d outside [0, %d)", r.ID, i, t, ids.TextVocab)
		}
	}
	return nil
}
