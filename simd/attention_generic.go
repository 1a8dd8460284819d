package simd

// attnScoresGeneric sets s[p] = (q · k[p·stride : p·stride+len(q)]) * scale.
func attnScoresGeneric(s, q, k []float32, stride int, scale float32) {
	hd := len(q)
	for p := range s {
		row := k[p*stride : p*stride+hd : p*stride+hd]
		s[p] = dotGeneric(q, row) * scale
	}
}

// attnValuesGeneric adds Σ_p s[p] · v[p·stride : p·stride+len(out)] to out,
// one position at a time.
func attnValuesGeneric(out, s, v []float32, stride int) {
	hd := len(out)
	for p, w := range s {
		axpyGeneric(w, v[p*stride:p*stride+hd:p*stride+hd], out)
	}
}
