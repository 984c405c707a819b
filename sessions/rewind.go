package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"

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
