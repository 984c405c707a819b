package doctor

import (
	"regexp"
	"strings"

	"github.com/devagent/dev/llm"
)

// Profile is a profile for config.json with what dev doctor measured: the
// server, the model, the context window it really gives, and whether the
// model thinks unless told not to.
type Profile struct {
	Name             string `json:"name"`
	APIURL           string `json:"apiUrl"`
	Model            string `json:"model"`
	MaxContextTokens int    `json:"maxContextTokens,omitempty"`
	// Thinking is "off" for a model that reasons by default (its budget
	// goes to the answer), "" otherwise.
	Thinking string `json:"thinking,omitempty"`
	// Notes say where each value came from.
	Notes []string `json:"notes"`
}

var nameJunk = regexp.MustCompile(`[^a-z0-9]+`)

// profile builds the suggestion from the facts, when the model answered.
func (d *doctor) profile() *Profile {
	if d.stream.err != nil || !d.stream.ran {
		return nil
	}
	p := &Profile{APIURL: d.cfg.APIURL, Model: d.cfg.model()}
	server := d.serverName()
	model := d.cfg.model()
	if i := strings.LastIndexAny(model, "/\\"); i >= 0 {
		model = model[i+1:]
	}
	p.Name = strings.Trim(nameJunk.ReplaceAllString(strings.ToLower(server+"-"+model), "-"), "-")
	p.Notes = append(p.Notes, "server: "+server)
	if w := d.facts.ContextWindow; w > 0 {
		p.MaxContextTokens = w
		p.Notes = append(p.Notes, "maxContextTokens: what the server gives the model ("+d.facts.ContextWindowSource+")")
	}
	if d.facts.ReasoningField != "" {
		p.Thinking = "off"
		p.Notes = append(p.Notes, "thinking off: the model reasons by default ("+d.facts.ReasoningField+"); "+
			"remove it, or set low/medium/high, to let it think (sent as "+string(llm.DialectOf(d.server.Kind, d.cfg.APIURL))+")")
	}
	return p
}
