//go:build !linux

package checkpoints

import "errors"

// watcher is Linux's inotify elsewhere: none, so every snapshot that
// looks where things changed reads every directory.
type watcher struct{}

func newWatcher() (*watcher, error) {
	return nil, errors.New("watching the working directory needs Linux's inotify")
}

func (w *watcher) close()                            {}
func (w *watcher) watching(string) bool              { return false }
func (w *watcher) add(string, string) error          { return nil }
func (w *watcher) requeue([]string)                  {}
func (w *watcher) drain() (dirty []string, all bool) { return nil, true }
