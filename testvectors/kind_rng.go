package testvectors

// runRNGExponential runs an "rng.exponential" case.
func runRNGExponential(c *Case, env *Env) error { return notSupported(c.Kind) }
