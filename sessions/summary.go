package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Summary is what a list of sessions shows of one: its facts, without its
// history and records.
type Summary struct {
	ID               string    `json:"id"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
	WorkingDirectory string    `json:"workingDirectory"`
	OriginalPrompt   string    `json:"originalPrompt"`
	Model            string    `json:"model"`
	Status           Status    `json:"status"`
	TotalTokens      int       `json:"totalTokens"`
	Profile          string    `json:"profile"`
	Cost             *float64  `json:"cost,omitempty"`
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
			out = append(out, k.summary)
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

// summary reads session id's summary, nil when its file cannot be read or
// decoded or holds another session. The history and the records, nearly
// all of a file, are skipped by a scan that looks for the ends of their
// strings without decoding them: encoding/json took longer to skip them
// than to decode them (BenchmarkSummary).
func (s *Store) summary(id string) *Summary {
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		return nil
	}
	sum, err := decodeSummary(data)
	if err != nil || sum.ID != id {
		return nil
	}
	return &sum
}

// summaryFields are the top-level fields of a session file that a Summary
// holds, in lower case; the scan decodes only these.
var summaryFields = map[string]bool{"id": true, "createdat": true, "updatedat": true, "workingdirectory": true,
	"originalprompt": true, "model": true, "status": true, "totaltokens": true, "profile": true, "cost": true}

// decodeSummary decodes a session file's summary fields. The values it
// skips are checked only for their structure (strings closed, brackets
// matched), not for their content.
func decodeSummary(data []byte) (Summary, error) {
	var sum Summary
	head := []byte{'{'}
	err := scanObject(data, func(key string, value []byte) {
		if summaryFields[strings.ToLower(key)] { // as encoding/json matches them
			if len(head) > 1 {
				head = append(head, ',')
			}
			head = strconv.AppendQuote(head, key)
			head = append(head, ':')
			head = append(head, value...)
		}
	})
	if err != nil {
		return sum, err
	}
	head = append(head, '}')
	err = json.Unmarshal(head, &sum)
	return sum, err
}

var errSyntax = errors.New("session file: not a JSON object")

// scanObject calls visit with each key of the JSON object in data and the
// raw bytes of its value.
func scanObject(data []byte, visit func(key string, value []byte)) error {
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
