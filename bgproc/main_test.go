package bgproc

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: watchers and Wait goroutines
// end with their processes, and managers are shut down.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
