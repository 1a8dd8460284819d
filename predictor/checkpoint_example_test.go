package predictor_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/omni-tts/omni/predictor"
)

// ExampleOpenModel opens the synthetic tiny model, reads one embedding row
// on demand, writes the model as a Hugging Face checkpoint and opens that.
func ExampleOpenModel() {
	src, err := predictor.OpenModel("synth:tiny+outliers@7")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	c := src.Config()
	fmt.Println("talker:", c.Talker.Layers, "layers of", c.Talker.Hidden, "; tensors:", len(src.Tensors()))

	row := make([]float32, c.TextHidden)
	if err := src.ReadRowsF32("talker.model.text_embedding.weight", c.TTSPad, 1, row); err != nil {
		fmt.Println(err)
		return
	}

	dir, _ := os.MkdirTemp("", "omni-example")
	defer os.RemoveAll(dir)
	if err := predictor.WriteHF(src, filepath.Join(dir, "tiny")); err != nil {
		fmt.Println(err)
		return
	}
	back, err := predictor.OpenModel(filepath.Join(dir, "tiny"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer back.Close()
	fmt.Println("checkpoint:", len(back.Tensors()), "tensors, projection:", back.Config().HasProjection())
	// Output:
	// talker: 2 layers of 64 ; tensors: 83
	// checkpoint: 83 tensors, projection: false
}
