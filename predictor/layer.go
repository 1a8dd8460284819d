package predictor

// layerWeights are the handles of one Qwen3 decoder layer: pre-norm
// attention with a fused q|k|v matrix and per-head q/k RMSNorm, then a
// pre-norm SwiGLU MLP with a fused gate|up matrix. No biases.
type layerWeights struct {
	inNorm   int32 // input_layernorm [hidden]
	qkv      int32 // q_proj|k_proj|v_proj [(heads+2·kvHeads)·headDim, hidden]
	qNorm    int32 // q_norm [headDim]
	kNorm    int32 // k_norm [headDim]
	o        int32 // o_proj [hidden, heads·headDim]
	postNorm int32 // post_attention_layernorm [hidden]
	gateUp   int32 // gate_proj|up_proj [2·intermediate, hidden]
	down     int32 // down_proj [hidden, intermediate], guarded rows zero
	// oGuard and downGuard are the guarded rows of o_proj and down_proj
	// in fp32 ([len(guard), ·]; see guard.go), or -1.
	oGuard, downGuard int32
}

// layer runs decoder layer l on the residual stream x (m rows, updated in
// place):
//
//	x += o_proj(attn(RMSNorm(x)))
//	x += down(silu(gate(h)) · up(h)), h = RMSNorm(x)
//
// Row r sits at position pos[r] of KV cache caches[r].
func (d *decoder) layer(l int, x []float32, m int, caches, pos []int32, s *scratch) error {
	g := &d.geom
	lw := &d.layers[l]
	b := d.b
	h := s.h[:m*g.hidden]
	qkv := s.qkv[:m*g.qkvWidth()]
	att := s.att[:m*g.heads*g.headDim]
	gu := s.gu[:m*2*g.inter]
	act := s.act[:m*g.inter]
	if err := b.RMSNorm(h, x, m, lw.inNorm, g.eps); err != nil {
		return err
	}
	if err := b.MatMul(qkv, h, m, lw.qkv); err != nil {
		return err
	}
	if err := b.Attention(att, qkv, m, caches, pos, l, lw.qNorm, lw.kNorm, d.rope, g.heads, g.eps); err != nil {
		return err
	}
	if err := b.MatMulAdd(x, att, m, lw.o); err != nil {
		return err
	}
	if err := d.addGuarded(x, att, m, lw.oGuard, s); err != nil {
		return err
	}
	if err := b.RMSNorm(h, x, m, lw.postNorm, g.eps); err != nil {
		return err
	}
	if err := b.MatMul(gu, h, m, lw.gateUp); err != nil {
		return err
	}
	if err := b.SwiGLU(act, gu, m); err != nil {
		return err
	}
	if err := b.MatMulAdd(x, act, m, lw.down); err != nil {
		return err
	}
	return d.addGuarded(x, act, m, lw.downGuard, s)
}
