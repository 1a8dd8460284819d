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

// ExampleWriteSafetensors writes two tensors and reads them back.
func ExampleWriteSafetensors() {
	dir, _ := os.MkdirTemp("", "omni-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "x.safetensors")
	err := predictor.WriteSafetensors(path, []predictor.WriteTensor{
		{Name: "w", DType: predictor.BF16, Shape: []int{2, 2}, Data: predictor.EncodeBF16([]float32{1, 0.5, -2, 3.140625})},
		{Name: "ids", DType: predictor.I64, Shape: []int{3}, Data: predictor.EncodeI64([]int64{2150, 2148, 7})},
	}, map[string]string{"format": "pt"})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := predictor.OpenSafetensors(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	w, shape, _ := f.F32("w")
	ids, _, _ := f.Int64s("ids")
	fmt.Println(f.Names(), shape, w, ids)
	// Output:
	// [ids w] [2 2] [1 0.5 -2 3.140625] [2150 2148 7]
}
