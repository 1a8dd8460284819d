package codec_test

import (
	"encoding/json"
	"testing"
)

// encoderJSON returns a config.json with the encoder_config section sec,
// its fields replaced by over.
func encoderJSON(t *testing.T, sec, over map[string]any) []byte {
	t.Helper()
	for k, v := range over {
		sec[k] = v
	}
	b, err := json.Marshal(map[string]any{"encoder_config": sec, "encoder_valid_num_quantizers": 16})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// encoderJSONBytes returns a config.json holding the encoder_config sec.
func encoderJSONBytes(sec map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"encoder_config": sec})
	return b
}
