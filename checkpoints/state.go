package checkpoints

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// State is what a rewind cuts a session back to besides the files, as the
// caller encodes it: each message of the history, and everything else
// (task list, audits, compressions) as one value. Messages are stored one
// object each, and a state names the state before it and how many of its
// messages it keeps, so a checkpoint costs the messages added since the
// last one, not the whole history again.
//
// A state's ID is the hash of what it holds (its messages' hashes and its
// rest's), not of how it is stored, so equal states have equal IDs
// whatever came before them.
type State struct {
	Messages [][]byte
	Rest     []byte
}

// A state object, stored under its state ID, is
//
//	format, base (32 bytes, zero: none), kept, depth, count, count message
//	hashes, rest hash
//
// meaning the first kept messages of base, then those listed. depth counts
// the bases below; past maxStateDepth a state lists all its messages, so
// loading one reads at most that many objects.
const (
	stateFormat   = 1
	maxStateDepth = 64
)

type stateObject struct {
	base  hash
	kept  int
	depth int
	msgs  []hash
	rest  hash
}

func encodeState(so stateObject) []byte {
	b := make([]byte, 0, 1+32+3*binary.MaxVarintLen64+32*(len(so.msgs)+1))
	b = append(b, stateFormat)
	b = append(b, so.base[:]...)
	b = binary.AppendUvarint(b, uint64(so.kept))
	b = binary.AppendUvarint(b, uint64(so.depth))
	b = binary.AppendUvarint(b, uint64(len(so.msgs)))
	for _, m := range so.msgs {
		b = append(b, m[:]...)
	}
	return append(b, so.rest[:]...)
}

var errBadState = errors.New("not a valid session state")

// stateID is the hash of a state's content.
func stateID(list []hash, rest hash) hash {
	h := sha256.New()
	h.Write([]byte("dev state\x00"))
	for _, m := range list {
		h.Write(m[:])
	}
	h.Write(rest[:])
	var id hash
	h.Sum(id[:0])
	return id
}

func decodeState(b []byte) (stateObject, error) {
	var so stateObject
	if len(b) < 1+32 || b[0] != stateFormat {
		return so, errBadState
	}
	copy(so.base[:], b[1:])
	b = b[1+32:]
	var vals [3]uint64
	for i := range vals {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return so, errBadState
		}
		vals[i], b = v, b[n:]
	}
	count := vals[2]
	if uint64(len(b)) != 32*(count+1) {
		return so, errBadState
	}
	so.kept, so.depth = int(vals[0]), int(vals[1])
	so.msgs = make([]hash, count)
	for i := range so.msgs {
		copy(so.msgs[i][:], b[32*i:])
	}
	copy(so.rest[:], b[32*count:])
	return so, nil
}

// lastState is the state saved or loaded last, kept to save the next one
// as what it adds: most checkpoints follow the one before.
type lastState struct {
	id    hash
	depth int
	msgs  [][]byte // their encodings, to skip hashing the same message again
	list  []hash
	rest  hash
}

// saveState stores st as a successor of base (the zero hash: none) and
// returns its id; when st equals base, that is base.
func (s *Store) saveState(base hash, st State) (hash, error) {
	var prev *lastState
	if base != (hash{}) {
		if s.last == nil || s.last.id != base {
			l, err := s.loadStateList(base)
			if err != nil {
				return hash{}, err
			}
			s.last = l
		}
		prev = s.last
	}
	list := make([]hash, len(st.Messages))
	for i, m := range st.Messages {
		if prev != nil && i < len(prev.msgs) && bytes.Equal(prev.msgs[i], m) {
			list[i] = prev.list[i]
		} else {
			list[i] = sha256.Sum256(m)
		}
	}
	rest := sha256.Sum256(st.Rest)
	id := stateID(list, rest)
	if prev != nil && id == prev.id || s.obj.has(id) {
		return id, nil
	}
	so := stateObject{rest: rest}
	if prev != nil && prev.depth+1 <= maxStateDepth {
		so.base, so.depth = base, prev.depth+1
		for so.kept < min(len(list), len(prev.list)) && list[so.kept] == prev.list[so.kept] {
			so.kept++
		}
	}
	so.msgs = list[so.kept:]
	for i := so.kept; i < len(list); i++ {
		if !s.obj.has(list[i]) {
			if err := s.obj.write(list[i], st.Messages[i]); err != nil {
				return hash{}, err
			}
		}
	}
	if !s.obj.has(rest) {
		if err := s.obj.write(rest, st.Rest); err != nil {
			return hash{}, err
		}
	}
	if err := s.obj.write(id, encodeState(so)); err != nil {
		return hash{}, err
	}
	msgs := make([][]byte, len(st.Messages))
	for i, m := range st.Messages {
		msgs[i] = bytes.Clone(m)
	}
	s.last = &lastState{id: id, depth: so.depth, msgs: msgs, list: list, rest: rest}
	return id, nil
}

// loadStateList resolves a state's message hashes through its bases.
func (s *Store) loadStateList(id hash) (*lastState, error) {
	var chain []stateObject
	for h := id; ; {
		data, err := s.obj.getUnchecked(h)
		if err != nil {
			return nil, err
		}
		so, err := decodeState(data)
		if err != nil {
			return nil, fmt.Errorf("checkpoint state %s: %w", h.id(), err)
		}
		chain = append(chain, so)
		if so.base == (hash{}) {
			break
		}
		if len(chain) > maxStateDepth+1 {
			return nil, fmt.Errorf("checkpoint state %s: %w: too many bases", id.id(), errBadState)
		}
		h = so.base
	}
	var list []hash
	for _, so := range slices.Backward(chain) {
		if so.kept > len(list) {
			return nil, fmt.Errorf("checkpoint state %s: %w: keeps more messages than its base has", id.id(), errBadState)
		}
		list = append(list[:so.kept:so.kept], so.msgs...)
	}
	if stateID(list, chain[0].rest) != id {
		return nil, fmt.Errorf("checkpoint state %s is corrupt: its content does not match its id", id.id())
	}
	return &lastState{id: id, depth: chain[0].depth, list: list, rest: chain[0].rest}, nil
}

// loadState reads a whole state.
func (s *Store) loadState(id hash) (State, error) {
	l, err := s.loadStateList(id)
	if err != nil {
		return State{}, err
	}
	st := State{Messages: make([][]byte, len(l.list))}
	for i, h := range l.list {
		if st.Messages[i], err = s.obj.get(h); err != nil {
			return State{}, err
		}
	}
	if st.Rest, err = s.obj.get(l.rest); err != nil {
		return State{}, err
	}
	s.last = l // without the encodings: the caller owns those
	return st, nil
}
