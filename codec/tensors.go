package codec

import "fmt"

// Tensor is one named tensor the decoder reads, with the shape the config
// implies (PyTorch layouts: Linear (out, in), Conv1d (out, in, k),
// ConvTranspose1d (in, out, k)).
type Tensor struct {
	Name     string
	Shape    []int
	Optional bool // present in the released file, not read by the decoder
}

// Elems returns the number of elements of t.
func (t Tensor) Elems() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// ExpectedTensors lists every tensor of speech_tokenizer/model.safetensors
// the decoder reads, with the shape c implies. The names are those of the
// released Qwen3-TTS-Tokenizer-12Hz file (the decoder half of
// Qwen3TTSTokenizerV2Model; 271 "decoder." tensors, all F32), with
// q = codebook_dim/2, L = latent_dim, H = hidden_size, A = heads·head_dim,
// D_i = decoder_dim/2^i, s_i = upsample_rates[i]:
//
//	decoder.quantizer.rvq_first.vq.layers.0._codebook.embedding_sum   [2048, q]
//	decoder.quantizer.rvq_first.vq.layers.0._codebook.cluster_usage   [2048]
//	decoder.quantizer.rvq_rest.vq.layers.{0..14}._codebook.{embedding_sum,cluster_usage}
//	decoder.quantizer.rvq_{first,rest}.output_proj.weight   [codebook_dim, q, 1] (no bias)
//	decoder.quantizer.rvq_{first,rest}.input_proj.weight    [q, codebook_dim, 1] (encoder side; optional)
//	decoder.pre_conv.conv.{weight [L, codebook_dim, 3], bias}
//	decoder.pre_transformer.input_proj.{weight [H, L], bias}
//	decoder.pre_transformer.layers.{i}.input_layernorm.weight, post_attention_layernorm.weight  [H]
//	decoder.pre_transformer.layers.{i}.self_attn.{q,k,v}_proj.weight [A, H], o_proj.weight [H, A] (no biases)
//	decoder.pre_transformer.layers.{i}.mlp.{gate,up}_proj.weight [I, H], down_proj.weight [H, I] (no biases)
//	decoder.pre_transformer.layers.{i}.{self_attn,mlp}_layer_scale.scale  [H]
//	decoder.pre_transformer.norm.weight [H]; output_proj.{weight [L, H], bias}
//	decoder.upsample.{j}.0.conv.{weight [L, L, r_j], bias}           (ConvTranspose1d, stride r_j)
//	decoder.upsample.{j}.1.dwconv.conv.{weight [L, 1, 7], bias}      (depthwise)
//	decoder.upsample.{j}.1.norm.{weight, bias}, pwconv1.{weight [4L, L], bias},
//	  pwconv2.{weight [L, 4L], bias}, gamma [L]
//	decoder.decoder.0.conv.{weight [D_0, L, 7], bias}
//	decoder.decoder.{1+i}.block.0.{alpha, beta} [D_i]                 (SnakeBeta, log scale)
//	decoder.decoder.{1+i}.block.1.conv.{weight [D_i, D_i+1, 2·s_i], bias}   (ConvTranspose1d)
//	decoder.decoder.{1+i}.block.{2,3,4}.act1.{alpha,beta}, conv1.conv.{weight [D_i+1, D_i+1, 7], bias},
//	  act2.{alpha,beta}, conv2.conv.{weight [D_i+1, D_i+1, 1], bias}  (dilations 1, 3, 9)
//	decoder.decoder.5.{alpha, beta} [D_4]; decoder.decoder.6.conv.{weight [1, D_4, 7], bias [1]}
//
// The list is in graph order.
func ExpectedTensors(c *Config) []Tensor {
	var ts []Tensor
	add := func(name string, shape ...int) { ts = append(ts, Tensor{Name: name, Shape: shape}) }
	q := c.CodebookDim / 2
	for k := 0; k < Codebooks; k++ {
		p := codebookPrefix(k)
		add(p+".embedding_sum", c.CodebookSize, q)
		add(p+".cluster_usage", c.CodebookSize)
	}
	for _, g := range []string{"rvq_first", "rvq_rest"} {
		add("decoder.quantizer."+g+".output_proj.weight", c.CodebookDim, q, 1)
		ts = append(ts, Tensor{Name: "decoder.quantizer." + g + ".input_proj.weight", Shape: []int{q, c.CodebookDim, 1}, Optional: true})
	}
	add("decoder.pre_conv.conv.weight", c.LatentDim, c.CodebookDim, 3)
	add("decoder.pre_conv.conv.bias", c.LatentDim)
	const pt = "decoder.pre_transformer."
	add(pt+"input_proj.weight", c.Hidden, c.LatentDim)
	add(pt+"input_proj.bias", c.Hidden)
	a := c.Heads * c.HeadDim
	for i := 0; i < c.Layers; i++ {
		p := fmt.Sprintf(pt+"layers.%d.", i)
		add(p+"input_layernorm.weight", c.Hidden)
		add(p+"self_attn.q_proj.weight", a, c.Hidden)
		add(p+"self_attn.k_proj.weight", a, c.Hidden)
		add(p+"self_attn.v_proj.weight", a, c.Hidden)
		add(p+"self_attn.o_proj.weight", c.Hidden, a)
		add(p+"self_attn_layer_scale.scale", c.Hidden)
		add(p+"post_attention_layernorm.weight", c.Hidden)
		add(p+"mlp.gate_proj.weight", c.Intermediate, c.Hidden)
		add(p+"mlp.up_proj.weight", c.Intermediate, c.Hidden)
		add(p+"mlp.down_proj.weight", c.Hidden, c.Intermediate)
		add(p+"mlp_layer_scale.scale", c.Hidden)
	}
	add(pt+"norm.weight", c.Hidden)
	add(pt+"output_proj.weight", c.LatentDim, c.Hidden)
	add(pt+"output_proj.bias", c.LatentDim)
	L := c.LatentDim
	for j, r := range c.UpsamplingRatios {
		p := fmt.Sprintf("decoder.upsample.%d.", j)
		add(p+"0.conv.weight", L, L, r)
		add(p+"0.conv.bias", L)
		add(p+"1.dwconv.conv.weight", L, 1, 7)
		add(p+"1.dwconv.conv.bias", L)
		add(p+"1.norm.weight", L)
		add(p+"1.norm.bias", L)
		add(p+"1.pwconv1.weight", 4*L, L)
		add(p+"1.pwconv1.bias", 4*L)
		add(p+"1.pwconv2.weight", L, 4*L)
		add(p+"1.pwconv2.bias", L)
		add(p+"1.gamma", L)
	}
	add("decoder.decoder.0.conv.weight", c.DecoderDim, L, 7)
	add("decoder.decoder.0.conv.bias", c.DecoderDim)
	for i, s := range c.UpsampleRates {
		in, out := c.blockDims(i)
		p := fmt.Sprintf("decoder.decoder.%d.block.", 1+i)
		add(p+"0.alpha", in)
		add(p+"0.beta", in)
		add(p+"1.conv.weight", in, out, 2*s)
		add(p+"1.conv.bias", out)
		for u := 0; u < 3; u++ {
			r := fmt.Sprintf("%s%d.", p, 2+u)
			add(r+"act1.alpha", out)
			add(r+"act1.beta", out)
			add(r+"conv1.conv.weight", out, out, 7)
			add(r+"conv1.conv.bias", out)
			add(r+"act2.alpha", out)
			add(r+"act2.beta", out)
			add(r+"conv2.conv.weight", out, out, 1)
			add(r+"conv2.conv.bias", out)
		}
	}
	n := len(c.UpsampleRates)
	add(fmt.Sprintf("decoder.decoder.%d.alpha", 1+n), c.outDim())
	add(fmt.Sprintf("decoder.decoder.%d.beta", 1+n), c.outDim())
	add(fmt.Sprintf("decoder.decoder.%d.conv.weight", 2+n), 1, c.outDim(), 7)
	add(fmt.Sprintf("decoder.decoder.%d.conv.bias", 2+n), 1)
	return ts
}

// codebookPrefix names codebook k (0 = rvq_first's only layer, 1..15 =
// rvq_rest's layers 0..14).
func codebookPrefix(k int) string {
	if k == 0 {
		return "decoder.quantizer.rvq_first.vq.layers.0._codebook"
	}
	return fmt.Sprintf("decoder.quantizer.rvq_rest.vq.layers.%d._codebook", k-1)
}

// resDilations are the dilations of each vocoder block's residual units.
var resDilations = [3]int{1, 3, 9}
