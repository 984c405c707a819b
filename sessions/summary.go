package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/devagent/dev/llm"
)

// Summary is what a list of sessions shows of one: its facts, without its
// history and records.
type Summary struct {
	ID               string    `json:"id"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
	WorkingDirectory string    `json:"workingDirectory"`
	OriginalPrompt   string    `json:"originalPrompt"`
	Prompts          int       `json:"prompts"`
	LastPrompt       string    `json:"lastPrompt"`
	Model            string    `json:"model"`
	Status           Status    `json:"status"`
	TotalTokens      int       `json:"totalTokens"`
	Profile          string    `json:"profile"`
	Cost             *float64  `json:"cost,omitempty"`
}

// Summary is what a list of sessions shows of s.
func (s *Session) Summary() Summary {
	return Summary{ID: s.ID, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, WorkingDirectory: s.WorkingDirectory,
		OriginalPrompt: s.OriginalPrompt, Prompts: s.Prompts, LastPrompt: s.LastPrompt, Model: s.Model, Status: s.Status,
		TotalTokens: s.TotalTokens, Profile: s.Profile, Cost: s.Cost}
}

// Listed is a session file as dev sessions list shows it: the session's
// summary, or why the file cannot be read as a session (Err: then the
// summary holds the ID only, and ModTime says when the file changed).
type Listed struct {
	Summary
	Path    string
	Err     error // a *CorruptError, or the error reading the file
	ModTime time.Time
}

// when is what a list orders a listed session by.
func (l Listed) when() time.Time {
	if l.Err != nil {
		return l.ModTime
	}
	return l.UpdatedAt
}

// Summaries lists every session file as Entries does (newest first, those
// that cannot be read included), with summaries instead of sessions: only
// the facts a list shows are decoded, not the histories and records that
// are nearly all of a file, so listing 500 long sessions costs a read of
// each file and a scan of it (the bench's sessions-list). Like Load, it
// says interrupted of a session saved as active that no dev holds. A file
// whose summary does not decode is read whole, for the error that says
// what in it is wrong.
func (s *Store) Summaries() ([]Listed, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var list []Listed
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && ValidID(id) && e.Type().IsRegular() {
			list = append(list, Listed{Summary: Summary{ID: id}, Path: s.path(id)})
		}
	}
	forEach(len(list), func(i int) {
		l := &list[i]
		if fi, err := os.Stat(l.Path); err == nil {
			l.ModTime = fi.ModTime()
		}
		if sum := s.summary(l.ID); sum != nil && stored(sum.Status) {
			l.Summary = *sum
			l.Status = s.liveStatus(l.ID, l.Status)
			return
		}
		sess, err := s.Load(l.ID)
		if err != nil {
			l.Err = err
			return
		}
		l.Summary = sess.Summary() // rewritten between the two reads
	})
	// A file removed meanwhile (pruned) is not listed.
	list = slices.DeleteFunc(list, func(l Listed) bool { return errors.Is(l.Err, ErrNotFound) })
	slices.SortFunc(list, func(a, b Listed) int {
		if c := b.when().Compare(a.when()); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return list, nil
}

// Index lists the sessions of a store as summaries for a process that
// lists them again and again (the session browser). It keeps each
// summary with its file's size and modification time and reads again
// only the files that changed: listing 1,000 sessions then costs a
// directory read and a stat per file (BenchmarkIndex). It is safe for
// concurrent use.
type Index struct {
	store *Store
	mu    sync.Mutex
	known map[string]indexed // by id
}

type indexed struct {
	size    int64
	modTime time.Time
	summary Summary
}

// Index returns an empty index of the store's sessions.
func (s *Store) Index() *Index {
	return &Index{store: s, known: map[string]indexed{}}
}

// List returns the summaries of all sessions, newest UpdatedAt first, as
// Store.List orders sessions. Files that cannot be read or decoded are
// skipped, as Store.List skips them.
func (x *Index) List() ([]Summary, error) {
	entries, err := os.ReadDir(x.store.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	type file struct {
		id      string
		size    int64
		modTime time.Time
	}
	var files []file
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !ValidID(id) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil { // removed since the directory was read
			continue
		}
		files = append(files, file{id, fi.Size(), fi.ModTime()})
	}

	x.mu.Lock()
	defer x.mu.Unlock()
	var stale []file
	for _, f := range files {
		if k, ok := x.known[f.id]; !ok || k.size != f.size || !k.modTime.Equal(f.modTime) {
			stale = append(stale, f)
		}
	}
	read := make([]*Summary, len(stale))
	forEach(len(stale), func(i int) { read[i] = x.store.summary(stale[i].id) })
	for i, f := range stale {
		if read[i] == nil {
			delete(x.known, f.id)
			continue
		}
		x.known[f.id] = indexed{size: f.size, modTime: f.modTime, summary: *read[i]}
	}
	out := make([]Summary, 0, len(files))
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if k, ok := x.known[f.id]; ok {
			sum := k.summary
			sum.Status = x.store.liveStatus(sum.ID, sum.Status) // a dev may have died since
			out = append(out, sum)
			seen[f.id] = true
		}
	}
	for id := range x.known { // sessions removed since the last List
		if !seen[id] {
			delete(x.known, id)
		}
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// listHead is how much of a session file a list reads first: the facts
// before its lists, unless its first request attached large files (its
// originalPrompt holds them). Pruning reads less (headSize): it needs
// updatedAt only.
const listHead = 16 << 10

// summary reads session id's summary, nil when its file cannot be read or
// decoded or holds another session. A file that holds the summary's facts
// before its lists, as dev writes them, is read to its lists only
// (decodeHead): listing 500 long sessions then reads 8 MB instead of
// 345 MB. The others (files of earlier versions, whose totalTokens and
// profile come after the history, and sessions without requests) are read
// whole, and the history and records, nearly all of a file, skipped by a
// scan that looks for the ends of their strings without decoding them:
// encoding/json took longer to skip them than to decode them
// (BenchmarkSummary).
func (s *Store) summary(id string) *Summary {
	f, err := os.Open(s.path(id))
	if err != nil {
		return nil
	}
	defer f.Close()
	data := make([]byte, listHead)
	n, err := io.ReadFull(f, data)
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF): // the whole file
		data = data[:n]
	case err != nil:
		return nil
	default:
		if sum, ok := decodeHead(data); ok {
			if sum.ID != id {
				return nil
			}
			return &sum
		}
		fi, err := f.Stat()
		if err != nil {
			return nil
		}
		whole := make([]byte, max(fi.Size(), int64(n)))
		copy(whole, data)
		m, err := io.ReadFull(f, whole[n:])
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return nil
		}
		data = whole[:n+m]
	}
	sum, err := decodeSummary(data)
	if err != nil || sum.ID != id {
		return nil
	}
	return &sum
}

// decodeHead decodes a summary from the start of a session file, when
// that start holds all of it: the fields up to the task list or the
// history, which a summary does not need, include prompts and totalTokens
// (written before the lists since dev kept prompts), and the session
// counts requests (one that counts none has its count from its history,
// see promptsOf). ok is false otherwise: the file must be read whole.
func decodeHead(head []byte) (sum Summary, ok bool) {
	seen := map[string]bool{}
	fields := []byte{'{'}
	err := scanObject(head, func(key string) bool {
		k := strings.ToLower(key)
		return k == "tasklist" || k == "history"
	}, func(key string, value []byte) {
		k := strings.ToLower(key)
		seen[k] = true
		if summaryFields[k] {
			fields = appendField(fields, key, value)
		}
	})
	if !errors.Is(err, errStopped) || !seen["prompts"] || !seen["totaltokens"] {
		return sum, false
	}
	if json.Unmarshal(append(fields, '}'), &sum) != nil || sum.Prompts == 0 {
		return Summary{}, false
	}
	return sum, true
}

// appendField appends "key":value to the fields of a JSON object being
// written (after its '{').
func appendField(fields []byte, key string, value []byte) []byte {
	if len(fields) > 1 {
		fields = append(fields, ',')
	}
	fields = strconv.AppendQuote(fields, key)
	fields = append(fields, ':')
	return append(fields, value...)
}

// summaryFields are the top-level fields of a session file that a Summary
// holds, in lower case; the scan decodes only these.
var summaryFields = map[string]bool{"id": true, "createdat": true, "updatedat": true, "workingdirectory": true,
	"originalprompt": true, "prompts": true, "lastprompt": true, "model": true, "status": true, "totaltokens": true,
	"profile": true, "cost": true}

// decodeSummary decodes a session file's summary fields. The values it
// skips are checked only for their structure (strings closed, brackets
// matched), not for their content. The history is decoded only for a
// session that counts no request though its history holds messages: a
// file written before the count was kept (see promptsOf).
func decodeSummary(data []byte) (Summary, error) {
	var sum Summary
	var hist []byte
	head := []byte{'{'}
	err := scanObject(data, nil, func(key string, value []byte) {
		k := strings.ToLower(key) // as encoding/json matches them
		if k == "history" {
			hist = value
		}
		if summaryFields[k] {
			head = appendField(head, key, value)
		}
	})
	if err != nil {
		return sum, err
	}
	head = append(head, '}')
	if err := json.Unmarshal(head, &sum); err != nil {
		return sum, err
	}
	if sum.Prompts == 0 && len(hist) > 2 { // more than []
		var msgs []llm.Message
		if err := json.Unmarshal(hist, &msgs); err != nil {
			return sum, err
		}
		sum.Prompts, sum.LastPrompt = promptsOf(msgs)
	}
	return sum, nil
}

var (
	errSyntax  = errors.New("session file: not a JSON object")
	errStopped = errors.New("scan stopped")
)

// scanObject calls visit with each key of the JSON object in data and the
// raw bytes of its value. When stop (if not nil) is true of a key, the
// scan ends there, before reading its value, with errStopped.
func scanObject(data []byte, stop func(key string) bool, visit func(key string, value []byte)) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errSyntax
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return errSyntax
		}
		end, err := skipString(data, i)
		if err != nil {
			return err
		}
		key := string(data[i+1 : end-1])
		if strings.ContainsRune(key, '\\') { // dev writes none
			if json.Unmarshal(data[i:end], &key) != nil {
				return errSyntax
			}
		}
		if stop != nil && stop(key) {
			return errStopped
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return errSyntax
		}
		start := skipSpace(data, i+1)
		end, err = skipValue(data, start)
		if err != nil {
			return err
		}
		visit(key, data[start:end])
		i = skipSpace(data, end)
		if i >= len(data) {
			return errSyntax
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return nil
		default:
			return errSyntax
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the string starting at data[i] (a quote):
// the index after its closing quote.
func skipString(data []byte, i int) (int, error) {
	i++
	for {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return 0, errSyntax
		}
		i += q
		// The quote closes the string unless an odd number of
		// backslashes escapes it.
		n := 0
		for j := i - 1; data[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i, nil
		}
	}
}

// skipValue returns the end of the value starting at data[i].
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errSyntax
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
	default: // a number, true, false or null
		start := i
		for i < len(data) && !strings.ContainsRune(",}] \n\t\r", rune(data[i])) {
			i++
		}
		if i == start {
			return 0, errSyntax
		}
		return i, nil
	}
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			end, err := skipString(data, i)
			if err != nil {
				return 0, err
			}
			i = end
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return 0, errSyntax
}

// forEach calls f(0) … f(n-1) on as many goroutines as there are CPUs:
// decoding session files dominates listing them.
func forEach(n int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
