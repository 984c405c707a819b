package sessions

import (
	"encoding/json"
	"testing"
)

// A request's constrained is written "grammar", "json" or false, and read
// back so; the true of earlier versions reads as the grammar (SPEC §18).
func TestConstrainedJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   Constrained
		want string
	}{{ConstrainedGrammar, `"grammar"`}, {ConstrainedJSON, `"json"`}, {NotConstrained, `false`}} {
		b, err := json.Marshal(Request{Constrained: tc.in})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil || string(m["constrained"]) != tc.want {
			t.Errorf("%q written %s, want %s", tc.in, m["constrained"], tc.want)
		}
		var back Request
		if err := json.Unmarshal(b, &back); err != nil || back.Constrained != tc.in {
			t.Errorf("%s read back as %q (%v)", b, back.Constrained, err)
		}
	}
	for in, want := range map[string]Constrained{`true`: ConstrainedGrammar, `false`: NotConstrained, `null`: NotConstrained} {
		var r Request
		if err := json.Unmarshal([]byte(`{"constrained":`+in+`}`), &r); err != nil || r.Constrained != want {
			t.Errorf("constrained %s read as %q (%v), want %q", in, r.Constrained, err, want)
		}
	}
	var r Request
	if err := json.Unmarshal([]byte(`{"constrained":7}`), &r); err == nil {
		t.Error("constrained 7 read without an error")
	}
}
