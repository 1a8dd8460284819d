package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// liveFuzzSynth is drainingSynth with live text, so the session fuzzer
// reaches token mode: every StartLive is refused (ErrDraining).
type liveFuzzSynth struct{ drainingSynth }

func (liveFuzzSynth) StartLive(context.Context, SpeechRequest) (LiveStream, error) {
	return nil, ErrDraining
}

// replacedRunes counts the U+FFFD that decoding the JSON string raw puts in
// beyond those raw spells (literally or as \ufffd): the invalid UTF-8 and
// lone surrogate escapes encoding/json replaces. It scans raw by JSON's
// string grammar; raw is a string encoding/json accepted.
func replacedRunes(raw []byte) int {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0
	}
	spelled := 0
	for i := 0; i < len(raw); i++ {
		switch {
		case raw[i] == '\\' && i+1 < len(raw) && raw[i+1] == 'u':
			if i+6 <= len(raw) && strings.EqualFold(string(raw[i+2:i+6]), "fffd") {
				spelled++
			}
			i += 5
		case raw[i] == '\\':
			i++ // an escaped character (maybe a backslash)
		case bytes.HasPrefix(raw[i:], []byte("\uFFFD")):
			spelled++
			i += 2
		}
	}
	return strings.Count(s, "\uFFFD") - spelled
}

// lettersAndDigits is the letters and digits of s in order: what sentence
// splitting keeps (text.Segments' contract).
func lettersAndDigits(s string) []rune {
	var out []rune
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			out = append(out, r)
		}
	}
	return out
}

// FuzzWSSession runs a live-text WebSocket session (GET
// /v1/audio/speech/stream) on a session.config message and a list of
// client messages (one a line), with nothing spoken (every admission is
// refused). A bad session.config is refused with a typed error; a bad
// message ends the session with a typed error naming message, type or
// text: one that is not a JSON object is the only "not a JSON object",
// and text that is not text (invalid UTF-8, a lone surrogate escape) is
// refused, never turned into U+FFFD. Every message read before is valid,
// and the sentences queued hold the letters and digits of the text sent,
// in order (all of them once session.close is read).
func FuzzWSSession(f *testing.F) {
	for _, s := range []struct{ config, msgs string }{
		{`{"type":"session.config","voice":"vivian","response_format":"pcm","split_granularity":"sentence"}`,
			`{"type":"input.text","text":"Hello there. This is"}` + "\n" + `{"type":"input.text","text":" live text! Does it"}` + "\n" +
				`{"type":"input.text","text":" speak? Yes."}` + "\n" + `{"type":"input.done"}` + "\n" + `{"type":"session.close"}`},
		{`{"type":"session.config","split_granularity":"token","stream_audio":false}`,
			`{"type":"input.text","text":"Hello wor"}` + "\n" + `{"type":"input.text","text":"ld, 你好。世界"}` + "\n" + `{"type":"session.close"}`},
		{`{"type":"session.config","split_granularity":"none","speed":1.5}`,
			`{"type":"input.text","text":"One. Two."}` + "\n" + `{"type":"input.done"}` + "\n" + `{"type":"input.text","text":"Three"}` + "\n" + `{"type":"session.close"}`},
		{`{"type":"session.config"}`, `{"type":"input.text","text":"bad \ud800 text."}` + "\n" + `{"type":"session.close"}`},
		{`{"type":"session.config"}`, "{\"type\":\"input.text\",\"text\":\"bad \xff text.\"}\n{\"type\":\"session.close\"}"},
		{`{"type":"session.config"}`, `{"type":"input.text","text":7}`},
		{`{"type":"session.config"}`, `{"type":5}`},
		{`{"type":"session.config"}`, `null`},
		{`{"type":"session.config"}`, `{"type":"input.text","text":"` + strings.Repeat("long ", 20) + `"}`},
		{`{"type":"session.config","split_granularity":"clause"}`, ``},
		{`{"type":"session.config","input":"x"}`, ``},
		{`{"type":"session.config","response_format":"wav"}`, ``},
		{`{"type":"session.config","voice":"nobody"}`, ``},
		{`{"type":"session.config","voice":"\udc00"}`, ``},
		{`{"type":7}`, ``}, {`null`, ``}, {`[`, ``},
	} {
		f.Add([]byte(s.config), []byte(s.msgs))
	}
	s, err := New(liveFuzzSynth{}, Config{MaxInputChars: 64})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, config, msgs []byte) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c := newWSSession(ctx, cancel, s, nil)
		lines := bytes.Split(msgs, []byte("\n"))
		next := -1 // the message receive gives next: -1 for config
		c.in = func() ([]byte, error) {
			if next < 0 {
				next++
				return config, nil
			}
			if next >= len(lines) {
				return nil, io.EOF
			}
			next++
			return lines[next-1], nil
		}
		if err := c.configure(); err != nil {
			var fe *FieldError
			var te *TooLongError
			var me *modelError
			switch {
			case errors.As(err, &fe):
				if fe.Field == "" || fe.Msg == "" {
					t.Fatalf("session.config refused with %v", err)
				}
			case errors.As(err, &te), errors.As(err, &me):
			default:
				t.Fatalf("session.config refused with untyped error %T %v", err, err)
			}
			return
		}
		if c.split != "sentence" && c.split != "token" && c.split != "none" {
			t.Fatalf("split_granularity %q accepted", c.split)
		}
		if c.tmpl.Voice != "vivian" && c.tmpl.Voice != "ryan" || !(c.speed >= 0.25 && c.speed <= 4) {
			t.Fatalf("session.config accepted with voice %q, speed %g", c.tmpl.Voice, c.speed)
		}

		var queued []wsSentence
		popped := make(chan struct{})
		go func() {
			defer close(popped)
			for {
				s, ok := c.pop(true)
				if !ok {
					return
				}
				queued = append(queued, s)
			}
		}()
		err := c.read()
		c.closeQueue()
		<-popped

		read := lines[:next]
		if err != nil && err != io.EOF {
			bad := read[len(read)-1]
			read = read[:len(read)-1]
			var fe *FieldError
			var te *TooLongError
			var obj map[string]json.RawMessage
			isObject := json.Unmarshal(bad, &obj) == nil && obj != nil
			switch {
			case errors.As(err, &fe):
				if fe.Field != "message" && fe.Field != "type" && fe.Field != "text" {
					t.Fatalf("message %q refused naming field %q: %v", bad, fe.Field, err)
				}
				if (fe.Field == "message") == isObject {
					t.Fatalf("message %q (a JSON object: %v) refused with %v", bad, isObject, err)
				}
			case errors.As(err, &te):
				if te.Field != "text" {
					t.Fatalf("message %q refused with %v", bad, err)
				}
			default:
				t.Fatalf("message %q refused with untyped error %T %v", bad, err, err)
			}
		}
		if err == nil {
			var last struct{ Type string }
			if json.Unmarshal(read[len(read)-1], &last) != nil || last.Type != "session.close" {
				t.Fatalf("session ended without error after %q", read[len(read)-1])
			}
		}
		var sent strings.Builder
		for _, m := range read {
			var obj map[string]json.RawMessage
			var typ, text string
			if json.Unmarshal(m, &obj) != nil || obj == nil || json.Unmarshal(obj["type"], &typ) != nil ||
				(obj["text"] != nil && json.Unmarshal(obj["text"], &text) != nil) {
				t.Fatalf("message %q accepted", m)
			}
			if !slices.Contains([]string{"input.text", "input.done", "session.close"}, typ) {
				t.Fatalf("message type %q accepted", typ)
			}
			if n := replacedRunes(obj["text"]); n > 0 {
				t.Fatalf("message %q accepted: %d invalid sequences in its text became U+FFFD", m, n)
			}
			if typ == "input.text" {
				sent.WriteString(text)
			}
		}
		var spoken strings.Builder
		for _, s := range queued {
			spoken.WriteString(s.text + " ")
		}
		want, got := lettersAndDigits(sent.String()), lettersAndDigits(spoken.String())
		if err == nil && !slices.Equal(got, want) || !slices.Equal(got, want[:min(len(got), len(want))]) {
			t.Fatalf("text sent %q (%s mode) queued as %q", sent.String(), c.split, spoken.String())
		}
	})
}
