package procgroup

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: a Group's Wait goroutine ends
// with its leader.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
