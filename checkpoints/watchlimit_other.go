//go:build !linux

package checkpoints

// watchLimit: watching directories needs Linux's inotify.
func watchLimit() (int, string) { return 0, "watching directories needs Linux's inotify" }
