package acp

import "github.com/devagent/dev/sessions"

// replay sends a loaded session's conversation as updates. It waits for
// the one reader of stored sessions (package transcript).
func (v *view) replay(*sessions.Session) error { return nil }
