package simd

import "strconv"

// lenBug formats the panic message for a kernel called with mismatched
// slice lengths: a caller bug, since data shapes are checked at load.
func lenBug(fn, a string, na int, b string, nb int) string {
	return "omni: BUG: simd." + fn + ": len(" + a + ") = " + strconv.Itoa(na) +
		", len(" + b + ") = " + strconv.Itoa(nb)
}

// shapeBug formats the panic message for a kernel called with an
// inconsistent shape.
func shapeBug(fn, what string) string {
	return "omni: BUG: simd." + fn + ": " + what
}

func itoa(i int) string { return strconv.Itoa(i) }
