package safetensors_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/omni-tts/omni/safetensors"
)

// ExampleWrite writes two tensors and reads them back.
func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "omni-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "x.safetensors")
	err := safetensors.Write(path, []safetensors.WriteTensor{
		{Name: "w", DType: safetensors.BF16, Shape: []int{2, 2}, Data: safetensors.EncodeBF16([]float32{1, 0.5, -2, 3.140625})},
		{Name: "ids", DType: safetensors.I64, Shape: []int{3}, Data: safetensors.EncodeI64([]int64{2150, 2148, 7})},
	}, map[string]string{"format": "pt"})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := safetensors.Open(path)
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
