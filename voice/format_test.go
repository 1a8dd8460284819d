package voice

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"strings"
	"testing"
	"time"
)

const testDigest = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

// handFile builds a voice file byte by byte from the layout in format.go
// (not with Encode): magic, version, header length, header, payload, CRC.
func handFile(version uint32, hdr string, payload []byte) []byte {
	var b []byte
	b = append(b, "OMNIVOIC"...)
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(hdr)))
	b = append(b, hdr...)
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// handHeader is a header with 2 dims and 1 frame.
const handHeader = `{"name":"me","model":{"hidden":2,"digest":"` + testDigest + `","spec":"synth:tiny-base"},"dims":2,"frames":1,"ref_text":"Hi.","ref_seconds":0.08,"consent":"I agree.","created":"2026-12-06T11:00:00Z"}`

// handPayload is the x-vector [1.5, -0.25] (0x3FC00000, 0xBE800000) and
// the codes 0, 1, …, 14, 2047.
func handPayload() []byte {
	p := []byte{0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x80, 0xBE}
	for i := 0; i < 15; i++ {
		p = append(p, byte(i), 0)
	}
	return append(p, 0xFF, 0x07)
}

// TestDecodeHandWritten decodes a file written by hand and checks every
// field against the values the bytes spell.
func TestDecodeHandWritten(t *testing.T) {
	b := handFile(1, handHeader, handPayload())
	if len(b) != 16+len(handHeader)+8+32+4 {
		t.Fatalf("hand file of %d bytes", len(b))
	}
	v, err := Decode("me.voice", b)
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "me" || v.Model.Hidden != 2 || v.Model.Digest != testDigest || v.Model.Spec != "synth:tiny-base" ||
		v.RefText != "Hi." || v.RefSeconds != 0.08 || v.Consent != "I agree." ||
		!v.Created.Equal(time.Date(2026, 12, 6, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("fields: %+v", v)
	}
	if len(v.XVector) != 2 || v.XVector[0] != 1.5 || v.XVector[1] != -0.25 {
		t.Errorf("x-vector %v, want [1.5 -0.25]", v.XVector)
	}
	if v.Frames() != 1 || v.RefCodes[0] != 0 || v.RefCodes[14] != 14 || v.RefCodes[15] != 2047 {
		t.Errorf("codes %v", v.RefCodes)
	}
	c := v.Clone()
	if len(c.XVector) != 2 || c.RefFrames() != 1 || c.RefTextIDs != nil || !c.InContext() {
		t.Errorf("clone %+v", c)
	}
	// Encode writes the same bytes back: the header's keys are in the
	// struct order the hand header uses
	out, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, b) {
		t.Errorf("Encode differs from the hand-written file:\n%q\n%q", out, b)
	}
}

// TestDecodeRefuses checks that every kind of corruption is refused with
// an ErrCorrupt error naming the file and the fault.
func TestDecodeRefuses(t *testing.T) {
	good := handFile(1, handHeader, handPayload())
	nanPayload := handPayload()
	binary.LittleEndian.PutUint32(nanPayload, math.Float32bits(float32(math.NaN())))
	bigCode := handPayload()
	bigCode[len(bigCode)-2], bigCode[len(bigCode)-1] = 0x00, 0x08 // 2048
	flipped := bytes.Clone(good)
	flipped[30] ^= 0x20
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "not a voice file"},
		{"magic", append([]byte("OMNIVOIX"), good[8:]...), "not a voice file"},
		{"version", handFile(2, handHeader, handPayload()), "version 2, this omni reads version 1"},
		{"truncated", good[:len(good)-1], "implies"},
		{"extra byte", append(bytes.Clone(good[:len(good)-4]), 0, 1, 2, 3, 4), "implies"},
		{"checksum", flipped, "checksum"},
		{"header length", append(append(bytes.Clone(good[:12]), 0xff, 0xff, 0xff, 0x7f), good[16:]...), "header length"},
		{"header json", handFile(1, `{"name":`, nil), "header"},
		{"unknown key", handFile(1, strings.Replace(handHeader, `"consent"`, `"consentx"`, 1), handPayload()), "unknown field"},
		{"nan", handFile(1, handHeader, nanPayload), "x-vector[0]"},
		{"code range", handFile(1, handHeader, bigCode), "codebook 15] = 2048"},
		{"dims vs hidden", handFile(1, strings.Replace(handHeader, `"hidden":2`, `"hidden":3`, 1), handPayload()), "model.hidden is 3"},
		{"bad name", handFile(1, strings.Replace(handHeader, `"name":"me"`, `"name":"../me"`, 1), handPayload()), "bad voice name"},
		{"digest", handFile(1, strings.Replace(handHeader, testDigest, "xyz", 1), handPayload()), "model.digest"},
		{"no text", handFile(1, strings.Replace(handHeader, `"ref_text":"Hi."`, `"ref_text":""`, 1), handPayload()), "without a reference text"},
		{"frames", handFile(1, strings.Replace(handHeader, `"frames":1`, `"frames":-1`, 1), handPayload()), "frames -1"},
	} {
		_, err := Decode("x.voice", c.b)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "x.voice") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrCorrupt naming x.voice and %q", c.name, err, c.want)
		}
	}
}

// TestValidName checks the name rule at its edges.
func TestValidName(t *testing.T) {
	for _, ok := range []string{"a", "Me_2.v-1", strings.Repeat("x", 64), "-x", "_"} {
		if err := ValidName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", ".hidden", "a/b", `a\b`, "a b", strings.Repeat("x", 65), "é", "a\x00"} {
		if err := ValidName(bad); !errors.Is(err, ErrName) {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
}

// FuzzDecode feeds arbitrary bytes to Decode: it never panics, and what it
// accepts is a valid voice that encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	f.Add(handFile(1, handHeader, handPayload()))
	f.Add(handFile(1, strings.Replace(handHeader, `"frames":1`, `"frames":0`, 1), handPayload()[:8]))
	f.Add([]byte("OMNIVOIC"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode("fuzz.voice", b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error without ErrCorrupt: %v", err)
			}
			return
		}
		if err := v.Validate(); err != nil {
			t.Fatalf("accepted an invalid voice: %v", err)
		}
		if _, err := Encode(v); err != nil {
			t.Fatalf("accepted voice does not encode: %v", err)
		}
	})
}
