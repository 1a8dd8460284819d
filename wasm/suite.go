package wasm

import (
	"encoding/json"
	"fmt"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/testvectors"
	"github.com/omni-tts/omni/wasm/abi"
)

// suite replays conformance suites inside the guest (omni conformance
// --wasm): the portable kinds run here in wasm, the model kinds on a guest
// backend whose kernels are the host's.
func (s *Session) suite(spec *abi.SuiteSpec, r *abi.Reply) error {
	if spec == nil || len(spec.Dirs) == 0 {
		return fmt.Errorf("wasm: conformance without suite directories")
	}
	env := &testvectors.Env{
		Precisions: spec.Precisions,
		Wasm:       true,
		NewBackend: func() (predictor.Backend, func()) {
			b := NewTrackingBackend()
			return b, b.FreeAll
		},
	}
	rep, err := testvectors.Run(spec.Dirs, testvectors.Options{Kind: spec.Kind}, env)
	if err != nil {
		return err
	}
	if r.Report, err = json.Marshal(rep); err != nil {
		return fmt.Errorf("wasm: conformance report: %w", err)
	}
	return nil
}
