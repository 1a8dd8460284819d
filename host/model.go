package host

import (
	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/predictor"
)

// OpenModel opens a model spec: a checkpoint directory, synth:SIZE[…], or a
// pulled hub id ORG/NAME[@REV], which resolves to its snapshot directory in
// the Hugging Face cache (an error says to run omni pull when it is not
// there). Every host-side user of a --model spec opens it here.
func OpenModel(spec string) (predictor.Source, error) {
	dir, _, err := hub.Resolve(spec)
	if err != nil {
		return nil, err
	}
	return predictor.OpenModel(dir)
}
