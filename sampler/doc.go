// Package sampler is omni's vLLM-compatible sampler: it chooses each
// stream's next token exactly as vLLM's v1 sampler does on the CPU, and for
// seeded requests it reproduces PyTorch's CPU random stream, so a seeded
// request gives the same tokens here as there, bit for bit.
//
// A request is described by Params (vLLM's SamplingParams names and
// defaults), validated once by NewRequest. A Sampler is created once per
// engine for a batch and vocabulary bound; Sample takes B rows of logits and
// runs, per row and in vLLM's order: allowed ids, bad words, min_tokens (stop
// ids and EOS masked), logit_bias, per-request Processors, repetition
// (prompt ∪ output), frequency and presence (output) penalties; greedy rows
// take the first argmax here; then temperature, min_p, top-k (ties at the
// threshold kept), top-p (stable ascending sort, float64 cumulative sum, the
// top token always kept), softmax and the exponential race argmax(p / q).
//
// Each seeded request owns a Generator: MT19937 seeded like
// torch.Generator().manual_seed(seed), drawing q exactly as torch's CPU
// exponential_ (two words per element, a 53-bit uniform u,
// float32(−log1p(−u))). A sampled step always advances it by exactly V
// elements; greedy rows draw nothing; unseeded random rows share the engine
// generator. Its state can be saved and restored (MarshalBinary).
//
// Exactness: masks, biases, penalties, temperature, top-k and the race are
// computed with torch's float32 operations and tie rules. The softmax uses a
// correctly rounded float32 exp where torch's CPU kernel uses a vectorised
// approximation; the two differ by at most an ulp per element, which can
// change a token only when two candidates of the race (or a min_p / top-p
// boundary) are within about 1e-7 relative. The reference vectors carry no
// such near-ties, and 5 000 unfiltered random steps against torch 1.13 gave
// no difference.
//
// Speed: when a row uses top-k without min_p and the processed logits are
// not requested, only the top-k survivors are ever divided, exponentiated or
// given noise values; the generator still advances by V (see topk_fast.go).
// On rows of at least 4·k blocks (blockLen = 8 logits each) a branch-free
// pass over the blocks bounds the top-k threshold from below by the k-th largest block maximum,
// so only blocks that can hold a survivor are scanned (see topk_block.go).
// Sample allocates nothing. Phase timers go to Config.Timer when set.
//
// Non-finite logits: a row holding a NaN or +Inf (after the processors,
// which only write -Inf) is refused as an error wrapping ErrNonFinite, where
// torch would return token 0; an all -Inf row (every id masked) gives
// token 0 as in torch.
//
// sampler imports only the standard library and builds for GOOS=wasip1.
package sampler
