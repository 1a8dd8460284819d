package wasm

import (
	"strings"
	"testing"
)

// TestDecodeRequestRefusesUnknownFields: a request field the guest does not
// know is refused naming it, and a known request decodes.
func TestDecodeRequestRefusesUnknownFields(t *testing.T) {
	r, err := decodeRequest([]byte(`{"ID":"a","TextIDs":[1,2],"MaxFrames":7}`))
	if err != nil || r.ID != "a" || len(r.TextIDs) != 2 || r.MaxFrames != 7 {
		t.Fatalf("known fields: %+v, %v", r, err)
	}
	_, err = decodeRequest([]byte(`{"ID":"a","TextIDs":[1],"VoiceFromTheFuture":{"x":1}}`))
	if err == nil || !strings.Contains(err.Error(), "VoiceFromTheFuture") {
		t.Fatalf("unknown field: %v, want a refusal naming VoiceFromTheFuture", err)
	}
}
