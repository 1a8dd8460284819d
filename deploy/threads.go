package deploy

import (
	"math"
	"strconv"
	"strings"
)

// ModelShare is the default share of the CPUs given to the model stage
// (talker and code predictor); the codec stage gets the rest.
const ModelShare = 2.0 / 3.0

// SplitCPUs splits cpus between the model stage and the codec stage: the
// model gets n0 = max(1, round(len × share)) (rounding half to even), capped
// at len − 1 when there are two or more; the codec gets the rest, or shares
// the last CPU when nothing is left. No CPUs → nil, nil.
func SplitCPUs(cpus []int, share float64) (model, codec []int) {
	n := len(cpus)
	if n == 0 {
		return nil, nil
	}
	n0 := max(1, int(math.RoundToEven(float64(n)*share)))
	if n > 1 {
		n0 = min(n0, n-1)
	}
	n0 = min(n0, n)
	model = append([]int(nil), cpus[:n0]...)
	codec = append([]int(nil), cpus[n0:]...)
	if len(codec) == 0 {
		codec = []int{cpus[n-1]}
	}
	return model, codec
}

// FormatCPURanges writes CPU ids as compressed ranges: 0,2,3,4 → "0,2-4".
func FormatCPURanges(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(cpus[i])+"-"+strconv.Itoa(cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
