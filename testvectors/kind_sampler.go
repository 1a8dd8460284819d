package testvectors

// runSampler runs a "sampler" case.
func runSampler(c *Case, env *Env) error { return notSupported(c.Kind) }
