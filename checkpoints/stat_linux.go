package checkpoints

import (
	"io/fs"
	"syscall"
)

// statExtra is what the platform adds to a file's size, time and mode for
// telling it unchanged: its inode, and the time its inode last changed
// (which a write or chmod moves even when the modification time is set
// back).
func statExtra(fi fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctim.Nano()
	}
	return 0, 0
}
