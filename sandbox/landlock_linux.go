package sandbox

import (
	"fmt"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// helperPath is the helper dev starts for every confined command: the
// running executable itself, by the kernel's reference to it, so that a
// confined command that replaces the dev file (a `go build -o dev` in the
// working directory) cannot replace the helper of the next command.
const helperPath = "/proc/self/exe"

// Landlock's write rights, by the ABI version that brought them. Reading,
// executing and device ioctls are not handled, so they stay unrestricted.
const (
	writeV1 = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeBlock | ll.AccessFSMakeSym
	// ABI 2: moving and linking files between directories.
	referV2 = ll.AccessFSRefer
	// ABI 3: truncate(2). Before it, truncating a file by path is not
	// restricted.
	truncateV3 = ll.AccessFSTruncate
	// ABI 4: TCP bind(2) and connect(2), by port.
	tcpV4 = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	// ABI 6: signals and abstract unix sockets may not reach a process
	// outside the sandbox. Abstract sockets are scoped too: they reach
	// services outside (a D-Bus session bus, X11) as the network does.
	scopeV6 = ll.ScopeSignal | ll.ScopeAbstractUnixSocket
)

// Probe says what Landlock enforces on this kernel.
func Probe() Support {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		why := "no Landlock support"
		if err != nil {
			why = err.Error()
		}
		return Support{Why: fmt.Sprintf("Landlock is not available (%s); it needs Linux 5.13 or later with Landlock enabled (lsm=…,landlock), and no seccomp filter blocking it", why)}
	}
	s := Support{ABI: abi, Files: true, Network: abi >= 4 && netFilterWorks(), Signals: abi >= 6}
	if abi < 3 {
		s.Why = "before ABI 3, Linux 6.2, truncate(2) of a file outside the writable directories is not prevented"
	}
	return s
}

// handled is the set of write rights this kernel can restrict.
func handled(abi int) landlock.AccessFSSet {
	var set uint64
	if abi >= 1 {
		set |= writeV1
	}
	if abi >= 2 {
		set |= referV2
	}
	if abi >= 3 {
		set |= truncateV3
	}
	return landlock.AccessFSSet(set)
}

// restrict confines this process and its future children to p: writes
// only inside p's directories (around the protected ones) and files, TCP
// only on p's ports, signals only inside the sandbox, as far as the
// kernel can. Missing directories are skipped (a build cache that does not
// exist yet cannot be created).
func restrict(p policy) error {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil {
		return err
	}
	set := handled(abi)
	if set == 0 {
		return fmt.Errorf("no file-system rights in Landlock ABI %d", abi)
	}
	args := []any{set}
	trees, files := plan(p.Dirs, p.Protected)
	fileRights := set & landlock.AccessFSSet(ll.AccessFSWriteFile|truncateV3)
	rules := []landlock.Rule{
		landlock.PathAccess(set, trees...).IgnoreIfMissing(),
		landlock.PathAccess(fileRights, append(files, p.Files...)...).IgnoreIfMissing(),
	}
	closeNet := abi >= 4 && !p.AllPorts
	if closeNet {
		args = append(args, landlock.AccessNetSet(tcpV4))
		for _, port := range p.Ports {
			rules = append(rules, landlock.ConnectTCP(port), landlock.BindTCP(port))
		}
	}
	if abi >= 6 {
		args = append(args, landlock.ScopedSet(scopeV6))
	}
	cfg, err := landlock.NewConfig(args...)
	if err != nil {
		return err
	}
	if err := cfg.Restrict(rules...); err != nil {
		return err
	}
	if closeNet && netFilterWorks() {
		// Landlock leaves Multipath TCP alone, and a Multipath TCP socket
		// reaches every TCP port (Go listens with one by default). Where
		// the filter cannot be had, Probe said the network is not
		// confined, and dev warned.
		return closeMultipathTCP()
	}
	return nil
}

func execve(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
