package reaper

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/devagent/dev/procgroup"
)

func TestOwned(t *testing.T) {
	t.Parallel()
	g := Group{PGID: 100, Start: 5000, Boot: "b"}
	leader := procgroup.Process{PID: 100, PGID: 100, SID: 100, Start: 5000}
	child := procgroup.Process{PID: 101, PGID: 100, SID: 100, Start: 5010}
	tests := []struct {
		name    string
		g       Group
		members []procgroup.Process
		boot    string
		want    bool
	}{
		{"leader with its start time", g, []procgroup.Process{leader, child}, "b", true},
		{"leader with another start time: a new process", g, []procgroup.Process{{PID: 100, PGID: 100, SID: 100, Start: 9000}}, "b", false},
		{"leader gone, its child left", g, []procgroup.Process{child}, "b", true},
		{"leader gone, a member older than the leader", g, []procgroup.Process{{PID: 7, PGID: 100, SID: 100, Start: 10}}, "b", false},
		{"leader gone, a member of another session", g, []procgroup.Process{{PID: 101, PGID: 100, SID: 50, Start: 6000}}, "b", false},
		{"another boot", g, []procgroup.Process{leader}, "c", false},
		{"start unknown, leader runs", Group{PGID: 100, Boot: "b"}, []procgroup.Process{leader}, "b", false},
		{"empty group", g, nil, "b", false},
		{"init's group", Group{PGID: 1, Start: 1, Boot: "b"}, []procgroup.Process{{PID: 1, PGID: 1, SID: 1, Start: 1}}, "b", false},
	}
	for _, tt := range tests {
		if got := owned(tt.g, tt.members, tt.boot); got != tt.want {
			t.Errorf("%s: owned = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestReadRecordSkipsBrokenLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	run := "0123456789abcdef0123456789abcdef"
	data := "run " + run + "\nrun short\nb1 100 5000\ngarbage\nb1 x 5\nb1 1 5\nb2 200 6000\nb2 300"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	runs, got, err := readRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Group{{PGID: 100, Start: 5000, Boot: "b1"}, {PGID: 200, Start: 6000, Boot: "b2"}}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(runs, []string{run}) {
		t.Errorf("got %v %+v, want %v %+v", runs, got, []string{run}, want)
	}
}

func TestTargetsOfChildren(t *testing.T) {
	t.Parallel()
	self, own := os.Getpid(), procgroup.Current()
	procs := []procgroup.Process{
		{PID: 500, PPID: self, PGID: 500, SID: 500, Start: 1},       // a command, recorded below
		{PID: 600, PPID: self, PGID: 600, SID: 600, Start: 1},       // an adopted orphan leading its group
		{PID: 700, PPID: self, PGID: own, SID: 1, Start: 1},         // a child in dev's own group
		{PID: 800, PPID: self, PGID: 800, SID: 800, Zombie: true},   // an orphan that exited
		{PID: 900, PPID: 2, PGID: 900, SID: 900, Start: 1},          // not dev's
		{PID: 501, PPID: 500, PGID: 500, SID: 500, Start: 2},        // the command's child
		{PID: 601, PPID: 600, PGID: 600, SID: 600, Start: 2},        // the orphan's child
		{PID: 701, PPID: self, PGID: 500, SID: 500, Start: 3},       // an orphan of the command's group
		{PID: 1000, PPID: 999, PGID: 1000, SID: 1000, Zombie: true}, // not dev's
	}
	boot, _ := bootID()
	groups := []Group{{PGID: 500, Start: 1, Boot: boot}}
	got := targets(groups, procs, boot, true)
	want := []target{{pgid: 500}, {pgid: 600}, {pid: 700}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("targets %+v, want %+v", got, want)
	}
	if got := targets(groups, procs, boot, false); len(got) != len(want)-2 {
		t.Errorf("without children: %+v", got)
	}
}
