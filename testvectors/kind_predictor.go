package testvectors

// runPredictor runs a "predictor" case. Placeholder until the predictor engine part exists: the
// owner of kind_predictor.go replaces it with the real handler.
func runPredictor(c *Case, env *Env) error { return notSupported(c.Kind) }
