package checkpoints

import (
	"os"
	"strconv"
	"strings"
)

// watchLimit is inotify's limit of watches per user.
func watchLimit() (int, string) {
	data, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 0, "inotify's limit cannot be read: " + err.Error()
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || n <= 0 {
		return 0, "inotify's limit is not a number"
	}
	return n, ""
}
