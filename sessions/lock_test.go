package sessions

import (
	"errors"
	"strings"
	"testing"
)

func TestLockInProcess(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), nil)
	release, err := s.Lock(someID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Lock(someID)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), someID) {
		t.Fatalf("second Lock error = %v, want ErrInUse naming the id", err)
	}
	other := "11111111-2222-4333-8444-555555555555"
	releaseOther, err := s.Lock(other)
	if err != nil {
		t.Fatalf("Lock of another session: %v", err)
	}
	releaseOther()
	release()
	release() // releasing twice is harmless
	again, err := s.Lock(someID)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	again()

	if _, err := s.Lock("../" + someID); !errors.Is(err, ErrBadID) {
		t.Errorf("Lock with a bad id: %v, want ErrBadID", err)
	}
}

func TestLockAcrossProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	c := startChild(t, "lock", dir, someID, "")
	c.expect(t, "locked")

	if _, err := s.Lock(someID); !errors.Is(err, ErrInUse) {
		t.Fatalf("Lock while another process holds it: %v, want ErrInUse", err)
	}
	// The child dies without releasing: the OS must drop its lock.
	c.kill(t)
	release, err := s.Lock(someID)
	if err != nil {
		t.Fatalf("Lock after the holder died: %v", err)
	}
	release()

	// And the other way round: a child cannot take what we hold.
	release, err = s.Lock(someID)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	c2 := startChild(t, "lock", dir, someID, "")
	c2.expect(t, "error: session is in use by another dev process: "+someID)
}
