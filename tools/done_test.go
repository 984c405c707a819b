package tools

import (
	"context"
	"strings"
	"testing"
)

func TestDone(t *testing.T) {
	t.Parallel()
	r := runTool(t, DoneTool{}, &Env{}, "\n  Fixed the bug.\n\nTests pass.  \n")
	if !r.OK || !r.Done || r.Output != "Fixed the bug.\n\nTests pass." || r.Summary != "Fixed the bug. …" {
		t.Errorf("%+v", r)
	}
	if err := (DoneTool{}).Check("\n \n"); err == nil || !strings.HasPrefix(err.Error(), "DONE needs a summary") {
		t.Errorf("Check = %v", err)
	}
	if r := (DoneTool{}).Run(context.Background(), &Env{}, ""); r.OK || r.Done {
		t.Errorf("empty summary accepted: %+v", r)
	}
}
