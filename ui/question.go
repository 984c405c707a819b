package ui

// Question stops the live part while a question waits for the user (an
// approval, ASK_USER): a question is not work in progress, so no spinner
// turns and no timer counts under it, and nothing is drawn over the
// answer› prompt. answered starts the live part again, timed from then,
// if the question stopped it (a command asked about runs once allowed).
func (t *Terminal) Question() (answered func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.live.on {
		return func() {}
	}
	what := t.live.what
	t.stopLive()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.live.on {
			t.startLive(what)
		}
	}
}
