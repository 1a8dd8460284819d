package codec

import "fmt"

// EncoderTensors lists every tensor of speech_tokenizer/model.safetensors
// the encoder reads, with the shape c implies, in graph order. The names
// are those of the released file (HF MimiModel's encoder half), with
// F = num_filters, C_s = F·2^s the width entering stride s (strides r_s =
// the ratios reversed), H = hidden_size, A = heads·head_dim, I =
// intermediate_size, Q = codebook_dim, N = codebook_size, and layer
// indices counted as MimiEncoder builds its list (a conv, then per stride
// its residual units, an ELU and the strided conv, then an ELU and the
// last conv; 14 for the real geometry):
//
//	encoder.encoder.layers.0.conv.{weight [F, 1, kernel_size], bias}
//	encoder.encoder.layers.{u}.block.1.conv.{weight [C_s/compress, C_s, residual_kernel_size], bias}
//	encoder.encoder.layers.{u}.block.3.conv.{weight [C_s, C_s/compress, 1], bias}
//	encoder.encoder.layers.{d}.conv.{weight [2·C_s, C_s, 2·r_s], bias}        (stride r_s)
//	encoder.encoder.layers.{last}.conv.{weight [H, C_S, last_kernel_size], bias}
//	encoder.encoder_transformer.layers.{i}.{input,post_attention}_layernorm.{weight, bias} [H]
//	encoder.encoder_transformer.layers.{i}.self_attn.{q,k,v}_proj.weight [A, H], o_proj.weight [H, A]
//	encoder.encoder_transformer.layers.{i}.mlp.fc1.weight [I, H], fc2.weight [H, I]
//	encoder.encoder_transformer.layers.{i}.{self_attn,mlp}_layer_scale.scale [H]
//	encoder.downsample.conv.weight [H, H, 4]                                   (stride 2, no bias)
//	encoder.quantizer.{semantic,acoustic}_residual_vector_quantizer.input_proj.weight [Q, H, 1]
//	encoder.quantizer.semantic_residual_vector_quantizer.layers.0.codebook.{embed_sum [N, Q], cluster_usage [N]}
//	encoder.quantizer.acoustic_residual_vector_quantizer.layers.{0..14}.codebook.{embed_sum, cluster_usage}
//
// The output projections, the acoustic codebooks past the 15th and the
// codebooks' "initialized" flags are listed as optional: present in the
// released file, not read by the encoder.
func EncoderTensors(c *EncoderConfig) []Tensor {
	var ts []Tensor
	add := func(name string, shape ...int) { ts = append(ts, Tensor{Name: name, Shape: shape}) }
	opt := func(name string, shape ...int) { ts = append(ts, Tensor{Name: name, Shape: shape, Optional: true}) }
	const se = "encoder.encoder.layers."
	F := c.NumFilters
	add(se+"0.conv.weight", F, 1, c.KernelSize)
	add(se+"0.conv.bias", F)
	idx := 1
	ch := F
	for s := range c.Ratios {
		r := c.Ratios[len(c.Ratios)-1-s]
		for range c.ResidualLayers {
			p := fmt.Sprintf("%s%d.block.", se, idx)
			add(p+"1.conv.weight", ch/c.Compress, ch, c.ResidualKernelSize)
			add(p+"1.conv.bias", ch/c.Compress)
			add(p+"3.conv.weight", ch, ch/c.Compress, 1)
			add(p+"3.conv.bias", ch)
			idx++
		}
		idx++ // ELU
		add(fmt.Sprintf("%s%d.conv.weight", se, idx), 2*ch, ch, 2*r)
		add(fmt.Sprintf("%s%d.conv.bias", se, idx), 2*ch)
		idx++
		ch *= 2
	}
	idx++ // ELU
	add(fmt.Sprintf("%s%d.conv.weight", se, idx), c.Hidden, ch, c.LastKernelSize)
	add(fmt.Sprintf("%s%d.conv.bias", se, idx), c.Hidden)
	H, A := c.Hidden, c.Heads*c.HeadDim
	for i := 0; i < c.Layers; i++ {
		p := fmt.Sprintf("encoder.encoder_transformer.layers.%d.", i)
		add(p+"input_layernorm.weight", H)
		add(p+"input_layernorm.bias", H)
		add(p+"self_attn.q_proj.weight", A, H)
		add(p+"self_attn.k_proj.weight", A, H)
		add(p+"self_attn.v_proj.weight", A, H)
		add(p+"self_attn.o_proj.weight", H, A)
		add(p+"self_attn_layer_scale.scale", H)
		add(p+"post_attention_layernorm.weight", H)
		add(p+"post_attention_layernorm.bias", H)
		add(p+"mlp.fc1.weight", c.Intermediate, H)
		add(p+"mlp.fc2.weight", H, c.Intermediate)
		add(p+"mlp_layer_scale.scale", H)
	}
	add("encoder.downsample.conv.weight", H, H, 2*EncodeDownsample)
	Q, N := c.CodebookDim, c.CodebookSize
	for _, g := range []string{"semantic", "acoustic"} {
		p := "encoder.quantizer." + g + "_residual_vector_quantizer."
		add(p+"input_proj.weight", Q, H, 1)
		opt(p+"output_proj.weight", H, Q, 1)
		n := 1
		if g == "acoustic" {
			n = c.Quantizers - 1
		}
		for k := 0; k < n; k++ {
			cb := fmt.Sprintf("%slayers.%d.codebook.", p, k)
			if g == "acoustic" && k >= Codebooks-1 {
				opt(cb+"embed_sum", N, Q)
				opt(cb+"cluster_usage", N)
			} else {
				add(cb+"embed_sum", N, Q)
				add(cb+"cluster_usage", N)
			}
			opt(cb+"initialized", 1)
		}
	}
	return ts
}

// encoderCodebookPrefix names the codebook of code k (0 = the semantic
// quantizer's only layer, 1..15 = the acoustic quantizer's layers 0..14).
func encoderCodebookPrefix(k int) string {
	if k == 0 {
		return "encoder.quantizer.semantic_residual_vector_quantizer.layers.0.codebook."
	}
	return fmt.Sprintf("encoder.quantizer.acoustic_residual_vector_quantizer.layers.%d.codebook.", k-1)
}
