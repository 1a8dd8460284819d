package sampler

// Key histograms of the block pre-pass. A histogram counts keys in
// histBins bins of 2^histShift keys each, the top bin ending at the largest
// key (two binades below it, 32 bins per binade); bin 0 also holds every key
// below. Counting from the top bin down finds the bin that holds the k-th
// largest key without moving any key: in the WASI guest, where every taken
// branch is an indirect jump, three times cheaper than a quickselect.
const (
	histBins  = 64
	histShift = 18
)

// keyHist counts keys per bin.
type keyHist [histBins]int32

// histBase is the base of a histogram of keys up to top: bin j ≥ 1 holds
// the keys from base + j<<histShift on.
func histBase(top int64) int64 { return top - histBins<<histShift + 1 }

// histBin is the bin of key k.
func histBin(k, base int64) int { return int(max((k-base)>>histShift, 0) & (histBins - 1)) }

// find returns the bin j ≥ 1 that holds the k-th largest key counted, or 0
// when the bins from 1 up hold fewer than k keys (the k-th largest is then
// in bin 0, whose keys are not ordered against its lowest key).
func (h *keyHist) find(k int) int {
	higher := 0
	for j := histBins - 1; j > 0; j-- {
		if higher += int(h[j]); higher >= k {
			return j
		}
	}
	return 0
}
