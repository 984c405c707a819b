// Package capture keeps what a command prints, for the model and on disk
// (SPEC §2, §11): the head and the tail in memory whatever the command
// prints, a line between them saying what was cut and where the whole
// output is (CutOf reads it back), the whole output saved in the
// session's directory with secrets masked, each file capped (SpillMax)
// and all of a session's files together (Spills, SessionSpillMax), never
// emptying a file dev did not make.
//
// It is its own package, not part of bgproc, because it owns text and
// files, not processes: an MCP tool's result, which is no process of
// dev's, is kept the same way, and bgproc's record of a background
// process (a ring of its latest output, read by offset) is another thing.
// bgproc runs a command and writes what it prints to any io.Writer; the
// tools give it an Output.
package capture
