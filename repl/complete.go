package repl

import (
	"slices"
	"strings"

	"github.com/devagent/dev/mention"
)

// complete is what Tab offers at the end of before (the line up to the
// cursor): slash commands (the built-ins and those added, e.g. from files)
// as the line's first word, and paths after @ (mention.Complete). word is
// the text each candidate replaces, and nothing else: what follows the
// cursor, and what is typed after the completion, stay as they are.
func (r *REPL) complete(before string) (word string, candidates []string) {
	if first := strings.TrimLeft(before, " "); strings.HasPrefix(first, "/") && !strings.ContainsAny(first, " \t\n") {
		for _, n := range r.names() {
			if strings.HasPrefix(n, first) {
				candidates = append(candidates, n)
			}
		}
		slices.Sort(candidates)
		return first, candidates
	}
	if typed, ok := mention.Typed(before); ok && r.app != nil {
		word = "@" + typed
		// The editor puts a candidate in place of word, so each must go on
		// from it: a name with a space, which Complete quotes, is offered
		// after @ alone or once the quote is typed (@"my), not after @my.
		for _, c := range mention.Complete(r.app.Session().WorkingDirectory, typed) {
			if strings.HasPrefix(c, word) {
				candidates = append(candidates, c)
			}
		}
		return word, candidates
	}
	return "", nil
}
