package predictor

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// jsonObject is one JSON object of a config file, with typed accessors whose
// errors name the file and the dotted key path.
type jsonObject struct {
	file string // "config.json"
	path string // "talker_config." (with trailing dot) or ""
	m    map[string]json.RawMessage
}

// parseObject decodes b as a JSON object.
func parseObject(file, path string, b []byte) (*jsonObject, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		if path == "" {
			return nil, errorf(ErrConfig, "%s: %v", file, err)
		}
		return nil, errorf(ErrConfig, "%s: %s: %v", file, path[:len(path)-1], err)
	}
	if m == nil {
		return nil, errorf(ErrConfig, "%s: %snull, want an object", file, path)
	}
	return &jsonObject{file: file, path: path, m: m}, nil
}

func (o *jsonObject) missing(key string) error {
	return errorf(ErrConfig, "%s: %s%s missing", o.file, o.path, key)
}

func (o *jsonObject) wrongType(key string, raw json.RawMessage, want string) error {
	s := string(raw)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return errorf(ErrConfig, "%s: %s%s is %s, want %s", o.file, o.path, key, s, want)
}

// has reports whether key is present and not null.
func (o *jsonObject) has(key string) bool {
	raw, ok := o.m[key]
	return ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// object returns the nested object under key.
func (o *jsonObject) object(key string) (*jsonObject, error) {
	raw, ok := o.m[key]
	if !ok {
		return nil, o.missing(key)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, o.wrongType(key, raw, "an object")
	}
	return parseObject(o.file, o.path+key+".", raw)
}

// int returns the integer under key (a JSON number without fraction or
// exponent that fits an int).
func (o *jsonObject) int(key string) (int, error) {
	raw, ok := o.m[key]
	if !ok {
		return 0, o.missing(key)
	}
	return o.intValue(key, raw)
}

// intValue parses raw as an integer of int32 range: a number with a
// fraction or exponent, or a string, is the wrong type; an integer beyond
// int32 (vocab_size 2⁴⁰) is out of range, and the message says the range.
func (o *jsonObject) intValue(key string, raw json.RawMessage) (int, error) {
	v, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if errors.Is(err, strconv.ErrRange) || err == nil && (v > math.MaxInt32 || v < math.MinInt32) {
		return 0, o.wrongType(key, raw, "an integer in [-2147483648, 2147483647]")
	}
	if err != nil {
		return 0, o.wrongType(key, raw, "an integer")
	}
	return int(v), nil
}

// intOr returns the integer under key, or def when absent or null.
func (o *jsonObject) intOr(key string, def int) (int, error) {
	if !o.has(key) {
		return def, nil
	}
	return o.int(key)
}

// float returns the number under key.
func (o *jsonObject) float(key string) (float64, error) {
	raw, ok := o.m[key]
	if !ok {
		return 0, o.missing(key)
	}
	var n json.Number
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] == '"' || json.Unmarshal(t, &n) != nil {
		return 0, o.wrongType(key, raw, "a number")
	}
	v, err := n.Float64()
	if err != nil || math.IsInf(v, 0) {
		return 0, o.wrongType(key, raw, "a finite number")
	}
	return v, nil
}

// floatOr returns the number under key, or def when absent or null.
func (o *jsonObject) floatOr(key string, def float64) (float64, error) {
	if !o.has(key) {
		return def, nil
	}
	return o.float(key)
}

// boolOr returns the boolean under key, or def when absent or null.
func (o *jsonObject) boolOr(key string, def bool) (bool, error) {
	if !o.has(key) {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(o.m[key], &b); err != nil {
		return false, o.wrongType(key, o.m[key], "a boolean")
	}
	return b, nil
}

// stringOr returns the string under key, or def when absent or null.
func (o *jsonObject) stringOr(key, def string) (string, error) {
	if !o.has(key) {
		return def, nil
	}
	var s string
	if err := json.Unmarshal(o.m[key], &s); err != nil {
		return "", o.wrongType(key, o.m[key], "a string")
	}
	return s, nil
}

// idMap returns the name → id table under key (nil when absent). An id may
// be stored as an integer or a one-element list (some converted copies do).
func (o *jsonObject) idMap(key string) (map[string]int, error) {
	if !o.has(key) {
		return nil, nil
	}
	sub, err := o.object(key)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(sub.m))
	for name, raw := range sub.m {
		t := bytes.TrimSpace(raw)
		if len(t) > 0 && t[0] == '[' {
			var list []json.RawMessage
			if err := json.Unmarshal(t, &list); err != nil || len(list) != 1 {
				return nil, sub.wrongType(name, raw, "an integer or a one-element list")
			}
			t = list[0]
		}
		v, err := sub.intValue(name, t)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// dialectMap returns spk_is_dialect: speaker → dialect name, omitting
// speakers whose value is false.
func (o *jsonObject) dialectMap(key string) (map[string]string, error) {
	if !o.has(key) {
		return nil, nil
	}
	sub, err := o.object(key)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, raw := range sub.m {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out[name] = s
			continue
		}
		var b bool
		if json.Unmarshal(raw, &b) != nil || b {
			return nil, sub.wrongType(name, raw, "a dialect name or false")
		}
	}
	return out, nil
}
