package core

import "fmt"

// ContextError refuses a request whose prompt and frame cap need more
// talker positions than the model's context holds (max_position_embeddings):
// it could never run to its cap. It wraps ErrInvalidRequest. Front ends
// restate it in their users' words (the text's length, what to shorten).
type ContextError struct {
	TextTokens int // text tokens of the request (its TextIDs or trailing rows)
	PromptRows int // prompt positions (the prefill, text included)
	Frames     int // the request's frame cap (each frame one more position)
	Limit      int // the model's context in positions
}

// Positions returns the positions the request needs: prompt + frame cap.
func (e *ContextError) Positions() int { return e.PromptRows + e.Frames }

// Error implements error.
func (e *ContextError) Error() string {
	return fmt.Sprintf("core: invalid request: %d text tokens give %d prompt positions and a cap of %d frames, %d positions in all, more than the model's context of %d (shorten the text or lower max_frames)",
		e.TextTokens, e.PromptRows, e.Frames, e.Positions(), e.Limit)
}

// Unwrap makes errors.Is(err, ErrInvalidRequest) true.
func (e *ContextError) Unwrap() error { return ErrInvalidRequest }
