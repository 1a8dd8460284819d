package sched

// DefaultBlockSize is the KV block size tokens are rounded up to.
const DefaultBlockSize = 16

// KVBytesForSeqs is the KV memory numSeqs sequences of maxModelLen tokens
// need when every sequence's tokens are rounded up to whole blocks:
// numSeqs × ceil(maxModelLen / blockSize) × blockSize × bytesPerToken.
// A blockSize below 1 means DefaultBlockSize; negative counts are 0.
func KVBytesForSeqs(numSeqs, maxModelLen int, bytesPerToken int64, blockSize int) int64 {
	if blockSize < 1 {
		blockSize = DefaultBlockSize
	}
	b := int64(blockSize)
	blocks := (nonNeg(maxModelLen) + b - 1) / b
	return nonNeg(numSeqs) * blocks * b * max(bytesPerToken, 0)
}

// MaxSeqsWithoutPreemption is how many sequences of maxModelLen tokens fit
// kvCacheBytes at once, so that none is ever preempted:
// floor(kvCacheBytes / KVBytesForSeqs(1, ...)), 0 when one sequence needs 0
// bytes or the budget is negative.
func MaxSeqsWithoutPreemption(kvCacheBytes int64, maxModelLen int, bytesPerToken int64, blockSize int) int {
	per := KVBytesForSeqs(1, maxModelLen, bytesPerToken, blockSize)
	if per <= 0 || kvCacheBytes <= 0 {
		return 0
	}
	return int(kvCacheBytes / per)
}
