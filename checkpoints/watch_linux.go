package checkpoints

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher reports the directories of the working directory where
// something changed, through inotify: a watch on each directory a
// snapshot holds, added before the directory is read, so that a change
// made after the read is an event. Events are queued by the kernel during
// the system call that makes the change, so once a command has exited,
// what it changed is in the queue; reading it costs a system call that
// finds it empty when nothing changed. Where inotify is blind (a file
// written through a memory map, or through a hard link from outside the
// working directory), a change is seen by the next snapshot that reads
// every directory: the one before each request.
type watcher struct {
	fd int

	mu   sync.Mutex
	wds  map[int32]string // watch → directory (slash path)
	dirs map[string]int32
	// again are directories a LookPaths snapshot did not look at, for
	// the next drain.
	again []string
}

// watchMask is what a watch reports: any change to an entry of the
// directory (its content, mode or times; created, deleted or renamed),
// and the directory itself going away.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("watching the working directory: %w", err)
	}
	return &watcher{fd: fd, wds: map[int32]string{}, dirs: map[string]int32{}}, nil
}

func (w *watcher) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}

// watching reports whether the directory rel is watched: it has not been
// deleted or replaced since it was read. It may be called on nil.
func (w *watcher) watching(rel string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.dirs[rel]
	return ok
}

// add watches the directory abs (rel in the working directory).
func (w *watcher) add(rel, abs string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	wd, err := unix.InotifyAddWatch(w.fd, abs, watchMask)
	if err != nil {
		if errors.Is(err, unix.ENOSPC) {
			return fmt.Errorf("watching the working directory: the system's limit of inotify watches is reached (fs.inotify.max_user_watches): %w", err)
		}
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EACCES) {
			return nil // gone, or not readable: the walk finds out
		}
		return fmt.Errorf("watching %s: %w", abs, err)
	}
	if old, ok := w.wds[int32(wd)]; ok && old != rel {
		delete(w.dirs, old) // the same directory under a new name
	}
	w.wds[int32(wd)] = rel
	w.dirs[rel] = int32(wd)
	return nil
}

// requeue keeps dirs for the next drain.
func (w *watcher) requeue(dirs []string) {
	w.mu.Lock()
	w.again = append(w.again, dirs...)
	w.mu.Unlock()
}

// drain reads the events queued since the last drain and returns the
// directories where something changed. all reports that it lost track
// (the queue overflowed, a directory moved): only reading every
// directory is safe then.
func (w *watcher) drain() (dirty []string, all bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := map[string]bool{}
	for _, d := range w.again {
		seen[d] = true
	}
	w.again = nil
	var buf [64 << 10]byte
	for {
		n, err := unix.Read(w.fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			break // EAGAIN: nothing more
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			rel, known := w.wds[ev.Wd]
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				all = true
			case !known:
			case ev.Mask&unix.IN_IGNORED != 0:
				// Deleted or unmounted: its parent's event says so.
				delete(w.wds, ev.Wd)
				if w.dirs[rel] == ev.Wd {
					delete(w.dirs, rel)
				}
			case ev.Mask&(unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0,
				ev.Mask&unix.IN_ISDIR != 0 && ev.Mask&(unix.IN_MOVED_FROM|unix.IN_MOVED_TO) != 0:
				// A directory moved: the names of the watches below it
				// are stale.
				all = true
			case ev.Mask&unix.IN_DELETE_SELF != 0:
			default:
				seen[rel] = true // an entry of it changed, or it did itself
			}
		}
	}
	for d := range seen {
		dirty = append(dirty, d)
	}
	return dirty, all
}
