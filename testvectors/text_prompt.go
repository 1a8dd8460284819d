package testvectors

import (
	"os"
	"path/filepath"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
)

// textPrompt builds the talker prompt of in on the checkpoint in dir the
// way a user's request is built: the special ids of its config.json, its
// tokenizer (the built-in Qwen3-TTS one allowed where builtin is set),
// core.SpecialIDs.TextRequest, then core.BuildPrompt. A checkpoint that
// does not load is the case's failure (setup, naming the model field); the
// request's own refusal comes back as err, for a case that expects one.
func textPrompt(c *Case, env *Env, dir string, builtin bool, in core.TextInput) (ids core.SpecialIDs, p core.Prompt, err, setup error) {
	cfgJSON, rerr := os.ReadFile(filepath.Join(dir, "config.json"))
	if rerr != nil {
		return ids, p, nil, c.Errorf("model", "%v", rerr)
	}
	cfg, perr := predictor.ParseConfig(cfgJSON, nil)
	if perr != nil {
		return ids, p, nil, c.Errorf("model", "%v", perr)
	}
	ids = core.IDsFromConfig(cfg)
	tk, terr := env.tokenizer(dir, builtin)
	if terr != nil {
		return ids, p, nil, c.Errorf("model", "tokenizer: %v", terr)
	}
	r, err := ids.TextRequest(tk, in)
	if err == nil {
		p, err = core.BuildPrompt(&r, &ids)
	}
	return ids, p, err, nil
}
