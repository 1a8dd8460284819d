package safetensors

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds an independent, plainly written validator of safetensors
// headers: its own JSON parser (keeping key order, so duplicates are seen),
// big-integer size arithmetic and a pairwise overlap check. The fuzz test
// requires parseHeader to accept exactly the headers it accepts, with the
// same tensors.

// jv is a parsed JSON value of the plain parser.
type jv struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys  []string
	vals  []*jv
	str   string // string value or number text
	items []*jv
}

type plainParser struct {
	b []byte
	i int
}

func (p *plainParser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *plainParser) value(depth int) (*jv, error) {
	if depth > 1000 {
		return nil, errors.New("too deep")
	}
	p.ws()
	if p.i >= len(p.b) {
		return nil, errors.New("eof")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		v := &jv{kind: 'o'}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return v, nil
		}
		for {
			p.ws()
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, errors.New("want :")
			}
			p.i++
			x, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.keys, v.vals = append(v.keys, k), append(v.vals, x)
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				return v, nil
			}
			return nil, errors.New("want , or }")
		}
	case c == '[':
		p.i++
		v := &jv{kind: 'a'}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return v, nil
		}
		for {
			x, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, x)
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == ']' {
				p.i++
				return v, nil
			}
			return nil, errors.New("want , or ]")
		}
	case c == '"':
		s, err := p.str()
		return &jv{kind: 's', str: s}, err
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(p.b[p.i:]), lit) {
				p.i += len(lit)
				if lit == "null" {
					return &jv{kind: 'z'}, nil
				}
				return &jv{kind: 'b'}, nil
			}
		}
		return nil, errors.New("bad literal")
	default:
		m := numberRE.Find(p.b[p.i:])
		if m == nil {
			return nil, errors.New("bad value")
		}
		p.i += len(m)
		return &jv{kind: 'n', str: string(m)}, nil
	}
}

var (
	numberRE  = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`)
	natRE     = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	plainSize = map[string]int64{"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
		"I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8, "F64": 8}
)

// str parses a JSON string the way encoding/json decodes it: invalid UTF-8
// bytes and unpaired surrogate escapes become U+FFFD.
func (p *plainParser) str() (string, error) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", errors.New("want string")
	}
	p.i++
	var sb strings.Builder
	hex4 := func() (rune, bool) {
		if p.i+4 > len(p.b) {
			return 0, false
		}
		var r rune
		for _, c := range p.b[p.i : p.i+4] {
			switch {
			case c >= '0' && c <= '9':
				r = r*16 + rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r*16 + rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r*16 + rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		p.i += 4
		return r, true
	}
	for {
		if p.i >= len(p.b) {
			return "", errors.New("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return sb.String(), nil
		case c < 0x20:
			return "", errors.New("control character in string")
		case c == '\\':
			p.i++
			if p.i >= len(p.b) {
				return "", errors.New("bad escape")
			}
			e := p.b[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				sb.WriteByte(e)
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			case 't':
				sb.WriteByte('\t')
			case 'u':
				r, ok := hex4()
				if !ok {
					return "", errors.New("bad \\u")
				}
				if utf16.IsSurrogate(r) {
					save := p.i
					if p.i+2 <= len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
						p.i += 2
						if r2, ok := hex4(); ok {
							if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
								sb.WriteRune(d)
								continue
							}
						}
					}
					p.i = save
					r = utf8.RuneError
				}
				sb.WriteRune(r)
			default:
				return "", errors.New("bad escape")
			}
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			p.i += n
			sb.WriteRune(r) // RuneError for an invalid byte, as encoding/json
		}
	}
}

// plainTensor is what the plain validator extracts per tensor.
type plainTensor struct {
	name       string
	dtype      string
	shape      []int
	begin, end int64
}

// plainValidate applies every header rule directly.
func plainValidate(hdr []byte, dataLen int64) ([]plainTensor, error) {
	p := &plainParser{b: hdr}
	top, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(hdr) {
		return nil, errors.New("trailing bytes")
	}
	if top.kind != 'o' {
		return nil, errors.New("not an object")
	}
	unique := func(keys []string) bool {
		seen := map[string]bool{}
		for _, k := range keys {
			if seen[k] {
				return false
			}
			seen[k] = true
		}
		return true
	}
	if !unique(top.keys) {
		return nil, errors.New("duplicate name")
	}
	maxI64 := big.NewInt(math.MaxInt64)
	nat := func(v *jv) (int64, bool) {
		if v.kind != 'n' || !natRE.MatchString(v.str) {
			return 0, false
		}
		b, _ := new(big.Int).SetString(v.str, 10)
		if b.Cmp(maxI64) > 0 {
			return 0, false
		}
		return b.Int64(), true
	}
	var out []plainTensor
	for i, name := range top.keys {
		v := top.vals[i]
		if name == "__metadata__" {
			if v.kind != 'o' || !unique(v.keys) {
				return nil, errors.New("bad metadata")
			}
			for _, x := range v.vals {
				if x.kind != 's' {
					return nil, errors.New("metadata value not a string")
				}
			}
			continue
		}
		if name == "" || v.kind != 'o' || len(v.keys) != 3 || !unique(v.keys) {
			return nil, errors.New("bad entry")
		}
		f := map[string]*jv{}
		for j, k := range v.keys {
			f[k] = v.vals[j]
		}
		d, s, o := f["dtype"], f["shape"], f["data_offsets"]
		if d == nil || s == nil || o == nil || d.kind != 's' || s.kind != 'a' || o.kind != 'a' || len(o.items) != 2 {
			return nil, errors.New("bad fields")
		}
		size, ok := plainSize[d.str]
		if !ok {
			return nil, errors.New("unknown dtype")
		}
		t := plainTensor{name: name, dtype: d.str}
		bytes := big.NewInt(size)
		for _, x := range s.items {
			n, ok := nat(x)
			if !ok {
				return nil, errors.New("bad dim")
			}
			t.shape = append(t.shape, int(n))
			bytes.Mul(bytes, big.NewInt(n))
		}
		var ok1, ok2 bool
		t.begin, ok1 = nat(o.items[0])
		t.end, ok2 = nat(o.items[1])
		if !ok1 || !ok2 || t.begin > t.end || t.end > dataLen {
			return nil, errors.New("bad offsets")
		}
		if bytes.Cmp(big.NewInt(t.end-t.begin)) != 0 {
			return nil, errors.New("size mismatch")
		}
		out = append(out, t)
	}
	for i := range out {
		for j := range i {
			a, b := out[i], out[j]
			if a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end {
				return nil, errors.New("overlap")
			}
		}
	}
	slices.SortFunc(out, func(a, b plainTensor) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// checkAgainstPlain runs both validators on one header and compares.
func checkAgainstPlain(t *testing.T, hdr []byte, dataLen int64) {
	t.Helper()
	h, err := parseHeader(hdr, dataLen)
	want, perr := plainValidate(hdr, dataLen)
	if (err == nil) != (perr == nil) {
		t.Fatalf("header %q data %d: parseHeader err %v, plain validator err %v", hdr, dataLen, err, perr)
	}
	if err != nil {
		if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrTruncated) {
			t.Fatalf("header %q: error %v wraps neither ErrFormat nor ErrTruncated", hdr, err)
		}
		return
	}
	if len(h.tensors) != len(want) {
		t.Fatalf("header %q: %d tensors, plain validator %d", hdr, len(h.tensors), len(want))
	}
	for i, w := range want {
		g := h.tensors[i]
		if g.Name != w.name || string(g.DType) != w.dtype || !slices.Equal(g.Shape, w.shape) || g.Offset != w.begin || g.Size != w.end-w.begin {
			t.Fatalf("header %q: tensor %d = %+v, plain validator %+v", hdr, i, g, w)
		}
	}
	// An accepted header can be read in full without a panic.
	if dataLen <= 1<<16 {
		file := make([]byte, dataLen)
		st := newSafetensors("fuzz", h, &mappedRegion{data: file, unmap: func([]byte) error { return nil }})
		h.dataOff = 0
		for _, ti := range h.tensors {
			if err := st.ReadRaw(ti.Name, make([]byte, ti.Size)); err != nil {
				t.Fatalf("ReadRaw(%s): %v", ti.Name, err)
			}
			if FloatDType(ti.DType) == nil {
				if _, _, err := st.F32(ti.Name); err != nil {
					t.Fatalf("F32(%s): %v", ti.Name, err)
				}
			}
		}
	}
}

func FuzzSafetensorsHeader(f *testing.F) {
	for _, c := range []struct {
		hdr     string
		dataLen uint32
	}{
		{`{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}`, 24},
		{`{"__metadata__":{"format":"pt"},"w":{"dtype":"BF16","shape":[4],"data_offsets":[8,16]},"b":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}   `, 16},
		{`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}`, 16},
		{`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, 16},
		{`{"e":{"dtype":"U8","shape":[0,5],"data_offsets":[3,3]}}`, 3},
		{`{"a":{"dtype":"F16","shape":[],"data_offsets":[0,2]}}`, 2},
		{`{"a":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}}`, 1},
		{`{"a":{"dtype":"I8","shape":[-1],"data_offsets":[0,1]}}`, 1},
		{`{"a":{"dtype":"I8","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, 0},
		{`{"a":{"dtype":"I8","shape":[1.0],"data_offsets":[0,1]}}`, 1},
		{`{"\ud800x":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]},"\ufffdx":{"dtype":"BOOL","shape":[1],"data_offsets":[1,2]}}`, 2},
		{`[]`, 0},
		{`{}`, 0},
		{`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}}`, 4},
	} {
		f.Add([]byte(c.hdr), c.dataLen)
	}
	f.Fuzz(func(t *testing.T, hdr []byte, dataLen uint32) {
		checkAgainstPlain(t, hdr, int64(dataLen))
	})
}

// TestSafetensorsHeaderRules refuses one header per rule, each with a
// message naming the problem, and checks the plain validator agrees.
func TestSafetensorsHeaderRules(t *testing.T) {
	for _, c := range []struct {
		name, hdr string
		dataLen   int64
		want      string
	}{
		{"not JSON", `{"a":`, 0, "unexpected EOF"},
		{"not an object", `[1,2]`, 0, `got "[", want "{"`},
		{"trailing garbage", `{} x`, 0, "after the header object"},
		{"second object", `{} {}`, 0, "after the header object"},
		{"duplicate name", `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, 2, `duplicate entry "a"`},
		{"duplicate field", `{"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, 1, "duplicate field dtype"},
		{"unknown field", `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"extra":0}}`, 1, `unknown field "extra"`},
		{"missing dtype", `{"a":{"shape":[1],"data_offsets":[0,1]}}`, 1, "missing dtype"},
		{"missing shape", `{"a":{"dtype":"U8","data_offsets":[0,1]}}`, 1, "missing shape"},
		{"missing offsets", `{"a":{"dtype":"U8","shape":[1]}}`, 1, "missing data_offsets"},
		{"unknown dtype", `{"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}}`, 1, `unknown dtype "F8_E4M3"`},
		{"dtype case", `{"a":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}}`, 4, `unknown dtype "f32"`},
		{"negative dim", `{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}}`, 1, "-1 is not a non-negative"},
		{"minus zero dim", `{"a":{"dtype":"U8","shape":[-0],"data_offsets":[0,0]}}`, 0, "-0 is not a non-negative"},
		{"fractional dim", `{"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}}`, 1, "1.5 is not"},
		{"string dim", `{"a":{"dtype":"U8","shape":["1"],"data_offsets":[0,1]}}`, 1, "want a non-negative integer"},
		{"size mismatch", `{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}}`, 24, "is 24 bytes, data_offsets [0, 20] hold 20"},
		{"three offsets", `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}}`, 2, "has 3 values, want 2"},
		{"end before begin", `{"a":{"dtype":"U8","shape":[0],"data_offsets":[5,4]}}`, 8, "end before begin"},
		{"outside data", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 7, "outside the 7-byte data area"},
		{"overlap", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, 12, "overlap"},
		{"overflow", `{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, 8, "overflows"},
		{"huge offset", `{"a":{"dtype":"U8","shape":[1],"data_offsets":[9223372036854775807,9223372036854775808]}}`, 8, "not a non-negative 64-bit integer"},
		{"metadata not strings", `{"__metadata__":{"k":1}}`, 0, "want a string"},
		{"metadata not object", `{"__metadata__":"x"}`, 0, `got "x", want "{"`},
		{"empty name", `{"":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, 1, "empty tensor name"},
		{"entry not object", `{"a":[1]}`, 0, `tensor a: got "[", want "{"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseHeader([]byte(c.hdr), c.dataLen)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("parseHeader err = %v, want %q", err, c.want)
			}
			if _, perr := plainValidate([]byte(c.hdr), c.dataLen); perr == nil {
				t.Fatalf("plain validator accepts %s", c.hdr)
			}
		})
	}
	// Accepted edge cases, also accepted by the plain validator.
	for _, hdr := range []string{
		`{}`,
		`{"e":{"dtype":"U8","shape":[0,5],"data_offsets":[3,3]},"f":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}}`,
		`{"s":{"dtype":"F16","shape":[],"data_offsets":[1,3]}}`,
		`  {"__metadata__":{}}    `,
	} {
		checkAgainstPlain(t, []byte(hdr), 3)
		if _, err := parseHeader([]byte(hdr), 3); err != nil {
			t.Errorf("parseHeader(%s): %v", hdr, err)
		}
	}
}

// TestHeaderLength covers the 8-byte prefix rules.
func TestHeaderLength(t *testing.T) {
	le := func(n uint64) []byte { return binary.LittleEndian.AppendUint64(nil, n) }
	for _, c := range []struct {
		prefix []byte
		size   int64
		want   error
		msg    string
	}{
		{nil, 5, ErrTruncated, "no 8-byte header length"},
		{le(0), 100, ErrFormat, "header length 0"},
		{le(93), 100, ErrTruncated, "header length 93 exceeds the 92 bytes"},
		{le(1 << 62), 100, ErrFormat, "exceeds the limit"},
		{le(math.MaxUint64), 100, ErrFormat, "exceeds the limit"},
	} {
		_, err := headerLen(c.prefix, c.size)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("headerLen(%x, %d) = %v, want %v containing %q", c.prefix, c.size, err, c.want, c.msg)
		}
	}
	if n, err := headerLen(le(92), 100); n != 92 || err != nil {
		t.Errorf("headerLen(92, 100) = %d, %v", n, err)
	}
	// Through the file: a truncated file is refused naming it.
	p := rawFile(t, `{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, make([]byte, 15))
	if _, err := Open(p); !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), p+": ") ||
		!strings.Contains(err.Error(), "tensor a") {
		t.Errorf("truncated data err = %v", err)
	}
}
