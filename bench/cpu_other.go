//go:build !unix

package main

import "time"

// selfCPU is unknown here.
func selfCPU() time.Duration { return 0 }
