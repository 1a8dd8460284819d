package speaker

import "fmt"

// Prefix is the name prefix of the speaker encoder's tensors in a Base
// checkpoint's model.safetensors.
const Prefix = "speaker_encoder."

// Tensor is one named tensor the encoder reads, with the shape the config
// implies (Conv1d layout: out, in, kernel).
type Tensor struct {
	Name  string
	Shape []int
}

// Elems returns the number of elements of t.
func (t Tensor) Elems() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// ExpectedTensors lists every tensor of the encoder in graph order, with
// C_i = enc_channels[i], K_i = enc_kernel_sizes[i], s = enc_res2net_scale,
// L = the last layer, A = enc_attention_channels (76 for the real config):
//
//	speaker_encoder.blocks.0.conv.{weight [C_0, 128, K_0], bias}
//	speaker_encoder.blocks.{i}.tdnn1.conv.{weight [C_i, C_i−1, 1], bias}         i = 1..L−1
//	speaker_encoder.blocks.{i}.res2net_block.blocks.{j}.conv.{weight [C_i/s, C_i/s, K_i], bias}  j < s−1
//	speaker_encoder.blocks.{i}.tdnn2.conv.{weight [C_i, C_i, 1], bias}
//	speaker_encoder.blocks.{i}.se_block.conv1.{weight [SE, C_i, 1], bias}, conv2.{weight [C_i, SE, 1], bias}
//	speaker_encoder.mfa.conv.{weight [C_L, ΣC_1..L−1, K_L], bias}
//	speaker_encoder.asp.tdnn.conv.{weight [A, 3·C_L, 1], bias}, asp.conv.{weight [C_L, A, 1], bias}
//	speaker_encoder.fc.{weight [enc_dim, 2·C_L, 1], bias}
func ExpectedTensors(c *Config) []Tensor {
	var ts []Tensor
	conv := func(name string, out, in, k int) {
		ts = append(ts, Tensor{Prefix + name + ".weight", []int{out, in, k}}, Tensor{Prefix + name + ".bias", []int{out}})
	}
	L := len(c.Channels) - 1
	conv("blocks.0.conv", c.Channels[0], c.MelDim, c.Kernels[0])
	cat := 0
	for i := 1; i < L; i++ {
		ci, s := c.Channels[i], c.Res2NetScale
		p := fmt.Sprintf("blocks.%d.", i)
		conv(p+"tdnn1.conv", ci, c.Channels[i-1], 1)
		for j := 0; j < s-1; j++ {
			conv(fmt.Sprintf("%sres2net_block.blocks.%d.conv", p, j), ci/s, ci/s, c.Kernels[i])
		}
		conv(p+"tdnn2.conv", ci, ci, 1)
		conv(p+"se_block.conv1", c.SEChannels, ci, 1)
		conv(p+"se_block.conv2", ci, c.SEChannels, 1)
		cat += ci
	}
	conv("mfa.conv", c.Channels[L], cat, c.Kernels[L])
	conv("asp.tdnn.conv", c.AttentionChannels, 3*c.Channels[L], 1)
	conv("asp.conv", c.Channels[L], c.AttentionChannels, 1)
	conv("fc", c.EncDim, 2*c.Channels[L], 1)
	return ts
}
