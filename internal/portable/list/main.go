// Command list prints the portable packages as go build patterns
// ("./core/... ./predictor/..."), for CI and the Taskfile:
//
//	GOOS=wasip1 GOARCH=wasm go build $(go run ./internal/portable/list)
package main

import (
	"fmt"
	"strings"

	"github.com/omni-tts/omni/internal/portable"
)

func main() {
	var b strings.Builder
	for i, p := range portable.Packages() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("./" + p + "/...")
	}
	fmt.Println(b.String())
}
