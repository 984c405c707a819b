//go:build !linux && !darwin

package repl

func newTypeahead() typeahead { return noAhead{} }
