package reaper

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestOwned(t *testing.T) {
	t.Parallel()
	g := Group{PGID: 100, Start: 5000, Boot: "b"}
	leader := proc{pid: 100, pgid: 100, sid: 100, start: 5000}
	child := proc{pid: 101, pgid: 100, sid: 100, start: 5010}
	tests := []struct {
		name    string
		g       Group
		members []proc
		boot    string
		want    bool
	}{
		{"leader with its start time", g, []proc{leader, child}, "b", true},
		{"leader with another start time: a new process", g, []proc{{pid: 100, pgid: 100, sid: 100, start: 9000}}, "b", false},
		{"leader gone, its child left", g, []proc{child}, "b", true},
		{"leader gone, a member older than the leader", g, []proc{{pid: 7, pgid: 100, sid: 100, start: 10}}, "b", false},
		{"leader gone, a member of another session", g, []proc{{pid: 101, pgid: 100, sid: 50, start: 6000}}, "b", false},
		{"another boot", g, []proc{leader}, "c", false},
		{"start unknown, leader runs", Group{PGID: 100, Boot: "b"}, []proc{leader}, "b", false},
		{"empty group", g, nil, "b", false},
		{"init's group", Group{PGID: 1, Start: 1, Boot: "b"}, []proc{{pid: 1, pgid: 1, sid: 1, start: 1}}, "b", false},
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
	self, own := os.Getpid(), ownGroup()
	procs := []proc{
		{pid: 500, ppid: self, pgid: 500, sid: 500, start: 1},       // a command, recorded below
		{pid: 600, ppid: self, pgid: 600, sid: 600, start: 1},       // an adopted orphan leading its group
		{pid: 700, ppid: self, pgid: own, sid: 1, start: 1},         // a child in dev's own group
		{pid: 800, ppid: self, pgid: 800, sid: 800, zombie: true},   // an orphan that exited
		{pid: 900, ppid: 2, pgid: 900, sid: 900, start: 1},          // not dev's
		{pid: 501, ppid: 500, pgid: 500, sid: 500, start: 2},        // the command's child
		{pid: 601, ppid: 600, pgid: 600, sid: 600, start: 2},        // the orphan's child
		{pid: 701, ppid: self, pgid: 500, sid: 500, start: 3},       // an orphan of the command's group
		{pid: 1000, ppid: 999, pgid: 1000, sid: 1000, zombie: true}, // not dev's
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
