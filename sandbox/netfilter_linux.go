package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock restricts the ports of TCP sockets only: a Multipath TCP socket
// (socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)) binds and connects to any
// port, and talks to plain TCP peers. Go's net.Listen opens one by default
// since Go 1.24. So when the sandbox closes the network, a seccomp filter
// makes such sockets unsupported (EPROTONOSUPPORT, on which Go and others
// fall back to plain TCP, which Landlock sees), and io_uring, which could
// create them without the socket system call, absent (ENOSYS: programs
// fall back to ordinary system calls).

// sysnums are the system calls the filter looks at, for one architecture.
type sysnums struct {
	arch       uint32
	socket     uint32
	socketcall uint32 // 0: none
	ioUring    uint32 // io_uring_setup
}

// filterArchs are the native and the compatibility (32-bit) system call
// tables of GOARCH. Another architecture gets no filter, and the sandbox
// reports that it cannot close the network there.
var filterArchs = map[string][]sysnums{
	"amd64": {{arch: unix.AUDIT_ARCH_X86_64, socket: 41, ioUring: 425}, {arch: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUring: 425}},
	"arm64": {{arch: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUring: 425}, {arch: unix.AUDIT_ARCH_ARM, socket: 281, ioUring: 425}},
}

// x32 system calls come with the native x86-64 arch and this bit set.
const x32Bit = 0x40000000

// netFilterWorks reports whether closeMultipathTCP can work here.
func netFilterWorks() bool {
	if _, ok := filterArchs[runtime.GOARCH]; !ok {
		return false
	}
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil
}

// closeMultipathTCP installs the filter on every thread of the process;
// it is inherited by what the process executes. The process must have
// no_new_privs set (Landlock's restriction sets it).
func closeMultipathTCP() error {
	archs, ok := filterArchs[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	prog, err := netFilter(archs, runtime.GOARCH == "amd64")
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	switch {
	case errno != 0:
		return fmt.Errorf("seccomp: %w", errno)
	case r != 0:
		return fmt.Errorf("seccomp: thread %d could not take the filter", r)
	}
	return nil
}

// Offsets in struct seccomp_data; arguments are 64-bit, and the filter
// reads the low half (little-endian on both architectures).
const (
	dataNr   = 0
	dataArch = 4
	dataArg0 = 16
	dataArg2 = 16 + 2*8
)

// Classic BPF opcodes.
const (
	ldAbs  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	andK   = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	retK   = unix.BPF_RET | unix.BPF_K
	sysSoc = 1 // socketcall's call number for socket
)

// insn is a BPF instruction whose jumps name labels.
type insn struct {
	label  string // this instruction's label, "" for none
	f      unix.SockFilter
	jt, jf string // jump targets of a jeq; "" is the next instruction
}

// netFilter is the program: for each arch, socket(…, IPPROTO_MPTCP) and
// socketcall's socket (whose arguments a filter cannot read) fail with
// EPROTONOSUPPORT, io_uring_setup with ENOSYS; everything else is allowed.
func netFilter(archs []sysnums, x32 bool) ([]unix.SockFilter, error) {
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e)&unix.SECCOMP_RET_DATA }
	var p []insn
	add := func(i insn) { p = append(p, i) }
	add(insn{f: unix.SockFilter{Code: ldAbs, K: dataArch}})
	for i, a := range archs {
		next := fmt.Sprintf("arch%d", i+1)
		add(insn{f: unix.SockFilter{Code: jeqK, K: a.arch}, jf: next})
		add(insn{f: unix.SockFilter{Code: ldAbs, K: dataNr}})
		if i == 0 && x32 {
			add(insn{f: unix.SockFilter{Code: andK, K: ^uint32(x32Bit)}})
		}
		add(insn{f: unix.SockFilter{Code: jeqK, K: a.socket}, jt: "protocol"})
		add(insn{f: unix.SockFilter{Code: jeqK, K: a.ioUring}, jt: "nosys"})
		if a.socketcall != 0 {
			add(insn{f: unix.SockFilter{Code: jeqK, K: a.socketcall}, jt: "socketcall"})
		}
		add(insn{f: unix.SockFilter{Code: retK, K: allow}})
		add(insn{label: next, f: unix.SockFilter{Code: ldAbs, K: dataArch}})
	}
	add(insn{f: unix.SockFilter{Code: retK, K: allow}}) // another arch: not ours to judge
	add(insn{label: "protocol", f: unix.SockFilter{Code: ldAbs, K: dataArg2}})
	add(insn{f: unix.SockFilter{Code: jeqK, K: unix.IPPROTO_MPTCP}, jt: "noproto"})
	add(insn{f: unix.SockFilter{Code: retK, K: allow}})
	add(insn{label: "socketcall", f: unix.SockFilter{Code: ldAbs, K: dataArg0}})
	add(insn{f: unix.SockFilter{Code: jeqK, K: sysSoc}, jt: "noproto"})
	add(insn{f: unix.SockFilter{Code: retK, K: allow}})
	add(insn{label: "noproto", f: unix.SockFilter{Code: retK, K: errno(unix.EPROTONOSUPPORT)}})
	add(insn{label: "nosys", f: unix.SockFilter{Code: retK, K: errno(unix.ENOSYS)}})
	return assemble(p)
}

// assemble resolves the labels of p into relative jumps (forward only, as
// classic BPF has them).
func assemble(p []insn) ([]unix.SockFilter, error) {
	at := map[string]int{}
	for i, in := range p {
		if in.label != "" {
			at[in.label] = i
		}
	}
	var bad error
	offset := func(from int, label string) uint8 {
		if label == "" {
			return 0
		}
		to, ok := at[label]
		if !ok || to <= from || to-from-1 > 255 {
			bad = errors.New("seccomp filter: bad jump to " + label)
			return 0
		}
		return uint8(to - from - 1)
	}
	out := make([]unix.SockFilter, len(p))
	for i, in := range p {
		f := in.f
		if f.Code == jeqK {
			f.Jt, f.Jf = offset(i, in.jt), offset(i, in.jf)
		}
		out[i] = f
	}
	return out, bad
}
