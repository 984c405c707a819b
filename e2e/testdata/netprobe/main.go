// Command netprobe tries one network operation and says whether it worked:
// the end-to-end tests run it as a sandboxed command.
//
//	netprobe dial HOST:PORT    connect with TCP
//	netprobe listen HOST:PORT  listen as Go does by default (Multipath TCP since Go 1.24)
//	netprobe mptcp HOST:PORT   connect with a Multipath TCP socket
//
// It prints "WHAT ok" and exits 0, or "WHAT refused: ERROR" and exits 1.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: netprobe dial|listen|mptcp HOST:PORT")
		os.Exit(2)
	}
	what, addr := os.Args[1], os.Args[2]
	if err := try(what, addr); err != nil {
		fmt.Println(what, "refused:", err)
		os.Exit(1)
	}
	fmt.Println(what, "ok")
}

func try(what, addr string) error {
	switch what {
	case "dial":
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "listen":
		l, err := net.Listen("tcp", addr)
		if err == nil {
			l.Close()
		}
		return err
	case "mptcp":
		a, err := net.ResolveTCPAddr("tcp4", addr)
		if err != nil {
			return err
		}
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Connect(fd, &unix.SockaddrInet4{Port: a.Port, Addr: [4]byte(a.IP.To4())})
	}
	return errors.New("unknown operation " + what)
}
