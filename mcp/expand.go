package mcp

import (
	"fmt"
	"strings"
)

// expander replaces ${VAR} and ${VAR:-default} in configuration strings, as
// other MCP clients do, so that a pasted configuration keeps its tokens in
// the environment. A variable that is not set and has no default is an
// error naming it; the first such error is kept.
type expander struct {
	getenv func(string) string
	err    error
}

func (x *expander) expand(s, where string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		expr := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(expr, ":-")
		switch v := x.getenv(name); {
		case v != "":
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			if x.err == nil {
				x.err = fmt.Errorf("the environment variable %s used in its %s is not set", name, where)
			}
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}
