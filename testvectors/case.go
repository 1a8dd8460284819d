package testvectors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Case is one conformance case: one *.json file of a suite.
type Case struct {
	Kind        string          // the case's "kind"
	Name        string          // the case's "name", unique within a run
	Description string          // the optional "description"
	Path        string          // path of the case file
	Raw         json.RawMessage // the whole case object

	fields  map[string]json.RawMessage
	tensors tensorSource // sibling safetensors, opened on first use
	opened  bool
}

// F32 is a float32 tensor resolved from a case: row-major values and shape.
type F32 struct {
	Data  []float32
	Shape []int
}

// I64 is an integer tensor resolved from a case: row-major values and shape.
type I64 struct {
	Data  []int64
	Shape []int
}

// FieldError reports a case that is malformed or whose result differs, naming
// the case file and the field concerned (a JSON path like "steps[2].logits").
type FieldError struct {
	File  string // case file
	Field string // field path, empty when the error concerns the whole file
	Err   error  // what is wrong
}

// Error implements error.
func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("testvectors: %s: %v", e.File, trim(e.Err.Error()))
	}
	return fmt.Sprintf("testvectors: %s: field %s: %v", e.File, e.Field, trim(e.Err.Error()))
}

// Unwrap returns the cause.
func (e *FieldError) Unwrap() error { return e.Err }

// trim drops a leading "testvectors: " so wrapped messages do not repeat it.
func trim(s string) string { return strings.TrimPrefix(s, "testvectors: ") }

// ErrMissing is wrapped by the error for a required field that is absent.
var ErrMissing = errors.New("testvectors: required field missing")

// parseCase decodes a case file's bytes. It checks the common fields (kind,
// name, description) and keeps the rest for the handler.
func parseCase(path string, data []byte) (*Case, error) {
	c := &Case{Path: path, Raw: json.RawMessage(data)}
	if err := strictUnmarshal(data, &c.fields); err != nil {
		return c, &FieldError{File: path, Err: fmt.Errorf("malformed JSON: %w", err)}
	}
	if err := c.Decode("kind", &c.Kind); err != nil {
		return c, err
	}
	if err := c.Decode("name", &c.Name); err != nil {
		return c, err
	}
	if c.Name == "" {
		return c, c.Errorf("name", "empty name")
	}
	if _, ok := c.fields["description"]; ok {
		if err := c.Decode("description", &c.Description); err != nil {
			return c, err
		}
	}
	return c, nil
}

// strictUnmarshal decodes JSON with numbers kept as json.Number.
func strictUnmarshal(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the case object")
	}
	return nil
}

// Errorf returns a *FieldError for this case and field.
func (c *Case) Errorf(field, format string, args ...any) error {
	return &FieldError{File: c.Path, Field: field, Err: fmt.Errorf(format, args...)}
}

// Has reports whether the case has the top-level field name.
func (c *Case) Has(name string) bool {
	_, ok := c.fields[name]
	return ok
}

// Field returns the raw JSON of a top-level field and whether it is present.
func (c *Case) Field(name string) (json.RawMessage, bool) {
	r, ok := c.fields[name]
	return r, ok
}

// Decode decodes the required top-level field name into v (json.Unmarshal
// rules, numbers into json.Number where v is interface-typed). A missing field
// is an error wrapping ErrMissing.
func (c *Case) Decode(name string, v any) error {
	r, ok := c.fields[name]
	if !ok {
		return &FieldError{File: c.Path, Field: name, Err: ErrMissing}
	}
	return c.DecodeRaw(name, r, v)
}

// DecodeRaw decodes raw (the value of the field path field) into v, wrapping a
// failure in a *FieldError.
func (c *Case) DecodeRaw(field string, raw json.RawMessage, v any) error {
	if err := strictUnmarshal(raw, v); err != nil {
		return &FieldError{File: c.Path, Field: field, Err: err}
	}
	return nil
}

// F32 resolves the required top-level tensor field name as float32 values.
func (c *Case) F32(name string) (F32, error) {
	r, ok := c.fields[name]
	if !ok {
		return F32{}, &FieldError{File: c.Path, Field: name, Err: ErrMissing}
	}
	return c.ResolveF32(name, r)
}

// I64 resolves the required top-level tensor field name as integers.
func (c *Case) I64(name string) (I64, error) {
	r, ok := c.fields[name]
	if !ok {
		return I64{}, &FieldError{File: c.Path, Field: name, Err: ErrMissing}
	}
	return c.ResolveI64(name, r)
}

// tensorRef is the {"tensor": NAME} form of a tensor value.
type tensorRef struct {
	Tensor string `json:"tensor"`
}

// ref reports whether raw is a tensor reference and returns its name.
func (c *Case) ref(field string, raw json.RawMessage) (string, bool, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return "", false, nil
	}
	var r tensorRef
	d := json.NewDecoder(bytes.NewReader(t))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil || r.Tensor == "" {
		return "", true, c.Errorf(field, "tensor reference must be {\"tensor\": NAME}")
	}
	return r.Tensor, true, nil
}

// SafetensorsPath is the sibling safetensors file of the case
// (top_p_edge.json → top_p_edge.safetensors).
func (c *Case) SafetensorsPath() string {
	return strings.TrimSuffix(c.Path, filepath.Ext(c.Path)) + ".safetensors"
}

// ModelPath resolves a case's model field: an absolute path as given, a
// relative one against the case file's directory (docs/TESTVECTORS.md).
func (c *Case) ModelPath(model string) string {
	if filepath.IsAbs(model) {
		return model
	}
	return filepath.Join(filepath.Dir(c.Path), model)
}

// source opens the sibling safetensors file on first use.
func (c *Case) source(field string) (tensorSource, error) {
	if !c.opened {
		c.opened = true
		s, err := openTensors(c.SafetensorsPath())
		if err != nil {
			return nil, c.Errorf(field, "open %s: %v", filepath.Base(c.SafetensorsPath()), err)
		}
		c.tensors = s
	}
	if c.tensors == nil {
		return nil, c.Errorf(field, "sibling safetensors %s could not be opened", filepath.Base(c.SafetensorsPath()))
	}
	return c.tensors, nil
}

// close releases the sibling safetensors file, if opened.
func (c *Case) close() {
	if c.tensors != nil {
		c.tensors.Close()
		c.tensors = nil
	}
}

// ResolveF32 resolves raw, the value of the field path field, as a float32
// tensor: an inline (nested) JSON array or a {"tensor": NAME} reference.
func (c *Case) ResolveF32(field string, raw json.RawMessage) (F32, error) {
	name, isRef, err := c.ref(field, raw)
	if err != nil {
		return F32{}, err
	}
	if isRef {
		s, err := c.source(field)
		if err != nil {
			return F32{}, err
		}
		v, shape, err := s.F32(name)
		if err != nil {
			return F32{}, c.Errorf(field, "tensor %q: %v", name, err)
		}
		return F32{Data: v, Shape: shape}, nil
	}
	var t F32
	shape, err := walkArray(raw, func(n json.Number) error {
		f, err := strconv.ParseFloat(string(n), 32)
		if err != nil {
			return fmt.Errorf("number %s is not a float32", n)
		}
		t.Data = append(t.Data, float32(f))
		return nil
	})
	if err != nil {
		return F32{}, c.Errorf(field, "%v", err)
	}
	t.Shape = shape
	return t, nil
}

// ResolveI64 resolves raw, the value of the field path field, as an integer
// tensor: an inline (nested) JSON array or a {"tensor": NAME} reference.
func (c *Case) ResolveI64(field string, raw json.RawMessage) (I64, error) {
	name, isRef, err := c.ref(field, raw)
	if err != nil {
		return I64{}, err
	}
	if isRef {
		s, err := c.source(field)
		if err != nil {
			return I64{}, err
		}
		v, shape, err := s.Int64s(name)
		if err != nil {
			return I64{}, c.Errorf(field, "tensor %q: %v", name, err)
		}
		return I64{Data: v, Shape: shape}, nil
	}
	var t I64
	shape, err := walkArray(raw, func(n json.Number) error {
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return fmt.Errorf("number %s is not an integer", n)
		}
		t.Data = append(t.Data, i)
		return nil
	})
	if err != nil {
		return I64{}, c.Errorf(field, "%v", err)
	}
	t.Shape = shape
	return t, nil
}

// walkArray visits the numbers of a rectangular nested JSON array in
// row-major order and returns its shape. A bare number is a scalar (shape []).
func walkArray(raw json.RawMessage, leaf func(json.Number) error) ([]int, error) {
	var v any
	if err := strictUnmarshal(raw, &v); err != nil {
		return nil, err
	}
	// The shape follows the chain of first elements; walkFixed then checks
	// every other element against it, so ragged arrays are refused.
	var shape []int
	for p := v; ; {
		a, ok := p.([]any)
		if !ok {
			break
		}
		shape = append(shape, len(a))
		if len(a) == 0 {
			break
		}
		p = a[0]
	}
	if err := walkFixed(v, 0, shape, leaf); err != nil {
		return nil, err
	}
	return shape, nil
}

// walkFixed checks v against shape and visits its numbers in order.
func walkFixed(v any, depth int, shape []int, leaf func(json.Number) error) error {
	if depth == len(shape) {
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("ragged or non-numeric array at depth %d (%T)", depth, v)
		}
		return leaf(n)
	}
	a, ok := v.([]any)
	if !ok {
		return fmt.Errorf("ragged array: number at depth %d, want an array", depth)
	}
	if len(a) != shape[depth] {
		return fmt.Errorf("ragged array: length %d at depth %d, want %d", len(a), depth, shape[depth])
	}
	for _, e := range a {
		if err := walkFixed(e, depth+1, shape, leaf); err != nil {
			return err
		}
	}
	return nil
}
