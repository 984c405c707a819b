//go:build !windows

package sessions

import "os"

func rename(from, to string) error { return os.Rename(from, to) }

// syncDir makes the entries of dir durable (a file renamed into it).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
