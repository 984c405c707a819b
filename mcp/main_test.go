package mcp

import (
	"os"
	"sync"
	"testing"

	"github.com/devagent/dev/mcp/mcptest"
	"go.uber.org/goleak"
)

// build is the stdio test server, built once for the package's tests by the
// first test that needs it.
var build struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	if code == 0 {
		// Every server process and every goroutine of the SDK must be
		// gone once the sets are closed.
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// serverBinary builds testdata/server on first use. Reading its source here
// makes go test's cache notice when it changes.
func serverBinary(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		if _, build.err = os.ReadFile("testdata/server/main.go"); build.err != nil {
			return
		}
		if build.dir, build.err = os.MkdirTemp("", "dev-mcp-test-"); build.err != nil {
			return
		}
		build.path, build.err = mcptest.Build("..", build.dir)
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}
