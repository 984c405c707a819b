package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkListLargeTree lists a 100,000-file work tree with a 600-line
// .gitignore (the target: well under a second per listing).
func BenchmarkListLargeTree(b *testing.B) {
	dir := b.TempDir()
	var ignore strings.Builder
	for i := range 200 {
		fmt.Fprintf(&ignore, "*.tmp%d\n/build%d/\n**/cache%d/\n", i, i, i)
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	must(os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(ignore.String()), 0o644))
	for i := range 100 {
		for j := range 10 {
			sub := filepath.Join(dir, fmt.Sprintf("pkg%02d", i), fmt.Sprintf("mod%d", j))
			must(os.MkdirAll(sub, 0o755))
			for k := range 100 {
				must(os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%03d.go", k)), nil, 0o644))
			}
		}
	}
	env := &Env{Dir: dir}
	call, err := ListDirectoryTool{}.Check(".")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		r := call.Run(context.Background(), env)
		if !r.OK || !strings.Contains(r.Output, "more (not shown") {
			b.Fatal(r.Output)
		}
	}
}
