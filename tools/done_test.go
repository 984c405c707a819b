package tools

import (
	"strings"
	"testing"
)

func TestDone(t *testing.T) {
	t.Parallel()
	r := runTool(t, DoneTool{}, &Env{}, "\n  Fixed the bug.\n\nTests pass.  \n")
	if !r.OK || !r.Done || r.Output != "Fixed the bug.\n\nTests pass." || r.Summary != "Fixed the bug. …" {
		t.Errorf("%+v", r)
	}
	if call, err := (DoneTool{}).Check("\n \n"); call != nil || err == nil || !strings.HasPrefix(err.Error(), "DONE needs a summary") {
		t.Errorf("empty summary accepted: Check = %v, %v", call, err)
	}
}
