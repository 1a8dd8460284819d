package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
)

// maxHeaderLen caps the JSON header (the safetensors format's own limit).
const maxHeaderLen = 100_000_000

// metadataKey is the reserved header entry holding string metadata.
const metadataKey = "__metadata__"

// header is a parsed, validated safetensors header.
type header struct {
	tensors  []TensorInfo      // sorted by name
	metadata map[string]string // may be nil
	dataOff  int64             // file offset of the data area (8 + header length)
	dataLen  int64             // bytes in the data area
}

// headerLen validates the 8-byte little-endian header length at the start of
// a file of fileSize bytes and returns it.
func headerLen(prefix []byte, fileSize int64) (int64, error) {
	if fileSize < 8 || len(prefix) < 8 {
		return 0, errorf(ErrTruncated, "file of %d bytes has no 8-byte header length", fileSize)
	}
	n := binary.LittleEndian.Uint64(prefix)
	if n == 0 {
		return 0, formatError("header length 0")
	}
	if n > maxHeaderLen {
		return 0, formatError("header length %d exceeds the limit %d", n, maxHeaderLen)
	}
	if int64(n) > fileSize-8 {
		return 0, errorf(ErrTruncated, "header length %d exceeds the %d bytes after the length prefix", n, fileSize-8)
	}
	return int64(n), nil
}

// parseHeader parses and validates the JSON header b of a file whose data
// area holds dataLen bytes. It enforces every rule of the format: a JSON
// object of name → {dtype, shape, data_offsets} (plus an optional
// "__metadata__" object of strings), no duplicate names or fields, known
// dtypes, non-negative dims, shape × dtype size equal to the offset range,
// ranges inside the data area and non-overlapping, nothing after the object
// but whitespace.
func parseHeader(b []byte, dataLen int64) (*header, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := expectDelim(dec, '{', "header"); err != nil {
		return nil, err
	}
	h := &header{dataLen: dataLen}
	seen := map[string]bool{}
	for dec.More() {
		name, err := keyToken(dec, "header")
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, formatError("duplicate entry %q", name)
		}
		seen[name] = true
		if name == metadataKey {
			if h.metadata, err = parseMetadata(dec); err != nil {
				return nil, err
			}
			continue
		}
		if name == "" {
			return nil, formatError("empty tensor name")
		}
		ti, err := parseEntry(dec, name)
		if err != nil {
			return nil, err
		}
		h.tensors = append(h.tensors, ti)
	}
	if err := expectDelim(dec, '}', "header"); err != nil {
		return nil, err
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, formatError("after the header object: %v", err)
		}
		return nil, formatError("unexpected %v after the header object", tok)
	}
	if err := checkRanges(h.tensors, dataLen); err != nil {
		return nil, err
	}
	slices.SortFunc(h.tensors, func(a, b TensorInfo) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return h, nil
}

// parseEntry parses one tensor entry {dtype, shape, data_offsets}.
func parseEntry(dec *json.Decoder, name string) (TensorInfo, error) {
	ti := TensorInfo{Name: name}
	if err := expectDelim(dec, '{', "tensor "+name); err != nil {
		return ti, err
	}
	var haveD, haveS, haveO bool
	var begin, end int64
	for dec.More() {
		key, err := keyToken(dec, "tensor "+name)
		if err != nil {
			return ti, err
		}
		switch key {
		case "dtype":
			if haveD {
				return ti, formatError("tensor %s: duplicate field dtype", name)
			}
			haveD = true
			s, err := stringToken(dec, "tensor "+name+" dtype")
			if err != nil {
				return ti, err
			}
			ti.DType = DType(s)
			if !ti.DType.Valid() {
				return ti, formatError("tensor %s: unknown dtype %q", name, s)
			}
		case "shape":
			if haveS {
				return ti, formatError("tensor %s: duplicate field shape", name)
			}
			haveS = true
			dims, err := intArray(dec, "tensor "+name+" shape")
			if err != nil {
				return ti, err
			}
			ti.Shape = make([]int, len(dims))
			for i, d := range dims {
				if d > math.MaxInt {
					return ti, formatError("tensor %s: dim %d of %d too large", name, i, d)
				}
				ti.Shape[i] = int(d)
			}
		case "data_offsets":
			if haveO {
				return ti, formatError("tensor %s: duplicate field data_offsets", name)
			}
			haveO = true
			offs, err := intArray(dec, "tensor "+name+" data_offsets")
			if err != nil {
				return ti, err
			}
			if len(offs) != 2 {
				return ti, formatError("tensor %s: data_offsets has %d values, want 2", name, len(offs))
			}
			begin, end = offs[0], offs[1]
			if begin > end {
				return ti, formatError("tensor %s: data_offsets [%d, %d] end before begin", name, begin, end)
			}
		default:
			return ti, formatError("tensor %s: unknown field %q", name, key)
		}
	}
	if err := expectDelim(dec, '}', "tensor "+name); err != nil {
		return ti, err
	}
	switch {
	case !haveD:
		return ti, formatError("tensor %s: missing dtype", name)
	case !haveS:
		return ti, formatError("tensor %s: missing shape", name)
	case !haveO:
		return ti, formatError("tensor %s: missing data_offsets", name)
	}
	n, ok := ElemCount(ti.Shape)
	if !ok {
		return ti, formatError("tensor %s: shape %v overflows", name, ti.Shape)
	}
	size := int64(ti.DType.Size())
	if n > math.MaxInt64/size {
		return ti, formatError("tensor %s: shape %v of %s overflows", name, ti.Shape, ti.DType)
	}
	if n*size != end-begin {
		return ti, formatError("tensor %s: shape %v of %s is %d bytes, data_offsets [%d, %d] hold %d",
			name, ti.Shape, ti.DType, n*size, begin, end, end-begin)
	}
	ti.Offset, ti.Size = begin, end-begin
	return ti, nil
}

// checkRanges refuses ranges outside the data area and non-empty ranges that
// overlap.
func checkRanges(ts []TensorInfo, dataLen int64) error {
	idx := make([]int, 0, len(ts))
	for i, t := range ts {
		if t.Offset > dataLen || t.Size > dataLen-t.Offset {
			return errorf(ErrTruncated, "tensor %s: data_offsets [%d, %d] outside the %d-byte data area",
				t.Name, t.Offset, t.Offset+t.Size, dataLen)
		}
		if t.Size > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case ts[a].Offset < ts[b].Offset:
			return -1
		case ts[a].Offset > ts[b].Offset:
			return 1
		}
		return 0
	})
	for k := 1; k < len(idx); k++ {
		p, c := ts[idx[k-1]], ts[idx[k]]
		if c.Offset < p.Offset+p.Size {
			return formatError("tensors %s [%d, %d] and %s [%d, %d] overlap",
				p.Name, p.Offset, p.Offset+p.Size, c.Name, c.Offset, c.Offset+c.Size)
		}
	}
	return nil
}

// parseMetadata parses the "__metadata__" object of string values.
func parseMetadata(dec *json.Decoder) (map[string]string, error) {
	if err := expectDelim(dec, '{', metadataKey); err != nil {
		return nil, err
	}
	md := map[string]string{}
	for dec.More() {
		k, err := keyToken(dec, metadataKey)
		if err != nil {
			return nil, err
		}
		if _, dup := md[k]; dup {
			return nil, formatError("%s: duplicate key %q", metadataKey, k)
		}
		v, err := stringToken(dec, metadataKey+" "+strconv.Quote(k))
		if err != nil {
			return nil, err
		}
		md[k] = v
	}
	return md, expectDelim(dec, '}', metadataKey)
}

// ElemCount returns the product of dims, false on overflow.
func ElemCount(shape []int) (int64, bool) {
	n := int64(1)
	for _, d := range shape {
		if d == 0 {
			return 0, true
		}
	}
	for _, d := range shape {
		if int64(d) > math.MaxInt64/n {
			return 0, false
		}
		n *= int64(d)
	}
	return n, true
}

func expectDelim(dec *json.Decoder, want json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return formatError("%s: %v", what, jsonErr(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return formatError("%s: got %v, want %q", what, tokString(tok), string(want))
	}
	return nil
}

func keyToken(dec *json.Decoder, what string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", formatError("%s: %v", what, jsonErr(err))
	}
	s, ok := tok.(string)
	if !ok {
		return "", formatError("%s: got %v, want a key", what, tokString(tok))
	}
	return s, nil
}

func stringToken(dec *json.Decoder, what string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", formatError("%s: %v", what, jsonErr(err))
	}
	s, ok := tok.(string)
	if !ok {
		return "", formatError("%s: got %v, want a string", what, tokString(tok))
	}
	return s, nil
}

// intArray reads a JSON array of non-negative integers.
func intArray(dec *json.Decoder, what string) ([]int64, error) {
	if err := expectDelim(dec, '[', what); err != nil {
		return nil, err
	}
	var out []int64
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, formatError("%s: %v", what, jsonErr(err))
		}
		num, ok := tok.(json.Number)
		if !ok {
			return nil, formatError("%s: got %v, want a non-negative integer", what, tokString(tok))
		}
		v, err := strconv.ParseInt(string(num), 10, 64)
		if err != nil || v < 0 || num[0] == '-' {
			return nil, formatError("%s: %s is not a non-negative 64-bit integer", what, num)
		}
		out = append(out, v)
	}
	return out, expectDelim(dec, ']', what)
}

func tokString(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return strconv.Quote(v)
	case json.Delim:
		return strconv.Quote(string(v))
	case nil:
		return "null"
	}
	b, _ := json.Marshal(tok)
	return string(b)
}

func jsonErr(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
