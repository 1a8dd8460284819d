package serve

import (
	"encoding/json"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// textOK is the reference for rawTextProblem on one JSON string literal
// (quotes included): decode it plainly into UTF-16 code units (escapes)
// and UTF-8 bytes (the rest), then ask whether every byte run is valid
// UTF-8 and every surrogate unit is half of a high-low pair.
func textOK(lit []byte) bool {
	var units []uint16
	flush := func(b []byte) bool {
		if !utf8.Valid(b) {
			return false
		}
		units = append(units, utf16.Encode([]rune(string(b)))...)
		return true
	}
	body := lit[1 : len(lit)-1]
	start := 0
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		if !flush(body[start:i]) {
			return false
		}
		if body[i+1] == 'u' {
			var v uint16
			for _, c := range body[i+2 : i+6] {
				d := uint16(0)
				switch {
				case c >= '0' && c <= '9':
					d = uint16(c - '0')
				case c >= 'a' && c <= 'f':
					d = uint16(c-'a') + 10
				default:
					d = uint16(c-'A') + 10
				}
				v = v<<4 | d
			}
			units = append(units, v)
			i += 5
		} else {
			units = append(units, 'x') // any other escape is one plain character
			i++
		}
		start = i + 1
	}
	if !flush(body[start:]) {
		return false
	}
	for i := 0; i < len(units); i++ {
		switch u := units[i]; {
		case u >= 0xD800 && u <= 0xDBFF:
			if i+1 >= len(units) || units[i+1] < 0xDC00 || units[i+1] > 0xDFFF {
				return false
			}
			i++
		case u >= 0xDC00 && u <= 0xDFFF:
			return false
		}
	}
	return true
}

// FuzzRawText: on every JSON string literal encoding/json accepts,
// rawTextProblem reports a problem exactly when the reference finds
// invalid UTF-8 or an unpaired surrogate.
func FuzzRawText(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\ud800b"`, `"\ud83d\ude00"`, `"\\ud800"`, "\"a\xffb\"", `"\udc00\ud800"`, `"\ud800\u0041"`, `"\\\ud800"`, `"\n\u00e9"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		var s string
		if len(lit) < 2 || lit[0] != '"' || json.Unmarshal(lit, &s) != nil {
			return
		}
		got := rawTextProblem(lit) == ""
		if want := textOK(lit); got != want {
			t.Fatalf("%q: rawTextProblem says ok=%v (%q), reference ok=%v", lit, got, rawTextProblem(lit), want)
		}
	})
}
