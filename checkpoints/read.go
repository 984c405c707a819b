package checkpoints

import (
	"errors"
	"io"
	"io/fs"
)

// Reading a file the scan listed: it may have changed since. Replaced by
// a link or a named pipe, openFile neither follows it nor waits for a
// writer; what was opened is checked again to be a regular file under
// the size cap; and the read ends past the cap, whatever the size said,
// when the file grows while it is read.

var errTooLarge = errors.New("larger than the checkpoint size cap")

// readFile reads a file the scan saw as regular and no larger than the
// cap, checking both again on the open file, into buf.
func (s *Store) readFile(p string, buf []byte) ([]byte, fs.FileInfo, error) {
	f, err := openFile(p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fs.ErrNotExist // replaced since the scan by something a checkpoint does not hold
	}
	if fi.Size() > s.maxFileBytes {
		return nil, nil, errTooLarge
	}
	if int64(cap(buf)) < fi.Size()+1 {
		buf = make([]byte, 0, fi.Size()+1)
	}
	data, err := readAllInto(f, buf[:0], s.maxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// readAllInto reads r to its end into buf, failing past limit bytes (a file
// that grows while it is read).
func readAllInto(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
