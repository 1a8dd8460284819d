package codec

// Replay builds the model of cfg on b without its weights: every upload
// call is made in the order, with the sizes, precisions and bias presence
// of a real load (Load, NewSynthetic), but with zeros for the values. It is
// for a backend that answers those calls from the record of a load made
// elsewhere — a WASI guest replaying its host's load (package wasm), so the
// weights never pass through the guest's memory. On any other backend it
// gives a model whose weights are all zero. It holds one zero buffer of the
// largest tensor while it runs.
func Replay(cfg Config, b Backend, precision string) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sizes := map[string]int{}
	largest := 0
	for _, t := range ExpectedTensors(&cfg) {
		sizes[t.Name] = t.Elems()
		largest = max(largest, t.Elems())
	}
	// one buffer of the largest tensor, made once (growing it tensor by
	// tensor cleared each bigger one again)
	zero := make([]float32, largest)
	return build(cfg, func(name string) ([]float32, error) {
		n, ok := sizes[name]
		if !ok {
			return nil, errorf(ErrNoTensor, "tensor %s missing", name)
		}
		return zero[:n:n], nil
	}, b, precision, true)
}
