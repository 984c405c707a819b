package reaper

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// AdoptOrphans makes dev the subreaper of its descendants
// (PR_SET_CHILD_SUBREAPER): a process whose parent exits becomes dev's child
// instead of init's, so that StopAll finds what a command moved out of its
// group (`setsid cmd &`, daemons) as long as dev runs. Orphans that exit
// before dev stay zombies until dev exits: dev cannot wait for them without
// taking the exit status of its own commands.
func AdoptOrphans() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// bootID names the boot: start times count from it.
func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// environ is the environment pid started with: NUL-separated NAME=value.
func environ(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}
