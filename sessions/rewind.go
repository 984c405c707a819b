package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
)

// rewound is the part of a session besides its history that a rewind
// cuts back. Usage (totalTokens, and the requests of §16) is not: those
// tokens were spent.
type rewound struct {
	TaskList         []parser.Task `json:"taskList"`
	Audits           []Audit       `json:"audits"`
	Compressions     []Compression `json:"compressions"`
	CompressionCount int           `json:"compressionCount"`
}

// CheckpointState is what a checkpoint keeps of the session for a rewind:
// each history message, and the task list, audits and compressions.
func (s *Session) CheckpointState() checkpoints.State {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	st := checkpoints.State{Messages: make([][]byte, len(s.History))}
	for i, m := range s.History {
		b.Reset()
		_ = enc.Encode(m) // two strings always encode
		st.Messages[i] = bytes.Clone(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	b.Reset()
	_ = enc.Encode(rewound{TaskList: s.TaskList, Audits: s.Audits, Compressions: s.Compressions, CompressionCount: s.CompressionCount})
	st.Rest = bytes.Clone(b.Bytes())
	return st
}

// RestoreCheckpointState cuts the session back to a state CheckpointState
// made; on an error the session is unchanged.
func (s *Session) RestoreCheckpointState(st checkpoints.State) error {
	history := make([]llm.Message, len(st.Messages))
	for i, data := range st.Messages {
		if err := json.Unmarshal(data, &history[i]); err != nil {
			return fmt.Errorf("checkpoint state: message %d: %w", i, err)
		}
	}
	var r rewound
	if err := json.Unmarshal(st.Rest, &r); err != nil {
		return fmt.Errorf("checkpoint state: %w", err)
	}
	s.History, s.TaskList, s.Audits, s.Compressions, s.CompressionCount = history, r.TaskList, r.Audits, r.Compressions, r.CompressionCount
	fillEmpty(s)
	return nil
}

// Rewind is one rewind of a session: the checkpoint it went back to, the
// last checkpoint of the session then (the present it left, checkpointed
// first), and the requests of the history it kept and removed.
type Rewind struct {
	Time      time.Time `json:"time"`
	To        int       `json:"to"`
	From      int       `json:"from"`
	FilesOnly bool      `json:"filesOnly,omitempty"`
	// Kept is how many requests the history held after the rewind,
	// Undone how many it removed (0 for a files-only rewind).
	Kept   int `json:"kept"`
	Undone int `json:"undone"`
}

// Undone says which checkpoints of the session its rewinds undid: files
// holds those whose changes to the files a rewind put back, requests those
// taken before a request the history no longer holds (files-only rewinds
// keep the history). A rewind to a checkpoint that a rewind took (undoing
// an undo) brings back what that one undid.
func (s *Session) Undone() (files, requests map[int]bool) {
	return s.undone(true, checkpoints.AfterTool), s.undone(false, checkpoints.BeforeRequest)
}

// undone replays the session's checkpoints and rewinds (with filesOnly,
// the files-only ones too): each checkpoint extends the line of work that
// leads to the present, a rewind goes back to the line its target was
// taken on (without the target when it was taken before a request: the
// request is undone). The checkpoints taken for reason that are not on
// the line at the end were undone.
func (s *Session) undone(filesOnly bool, reason checkpoints.Reason) map[int]bool {
	lineAt := map[int][]int{} // the line of work when each checkpoint was taken
	var line []int
	rewinds := s.Rewinds
	apply := func(upTo int) {
		for len(rewinds) > 0 && rewinds[0].From <= upTo {
			r := rewinds[0]
			rewinds = rewinds[1:]
			if r.FilesOnly && !filesOnly {
				continue
			}
			if l, ok := lineAt[r.To]; ok {
				line = slices.Clone(l)
				if c, err := checkpoints.Find(s.Checkpoints, r.To); err == nil && c.Reason == checkpoints.BeforeRequest {
					// Back to before a request: the request is undone.
					line = line[:len(line)-1]
				}
			}
		}
	}
	for _, c := range s.Checkpoints {
		apply(c.Number - 1)
		if c.Reason != checkpoints.BeforeRewind { // the present before a rewind: a copy of the line's end
			line = append(slices.Clone(line), c.Number)
		}
		lineAt[c.Number] = slices.Clone(line)
	}
	apply(math.MaxInt)
	live := map[int]bool{}
	for _, n := range line {
		live[n] = true
	}
	out := map[int]bool{}
	for _, c := range s.Checkpoints {
		if c.Reason == reason && !live[c.Number] {
			out[c.Number] = true
		}
	}
	return out
}
