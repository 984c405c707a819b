//go:build race

package e2e

// raceEnabled: the suite runs under the race detector, and so does the
// binary it builds, so that a race in dev itself fails the run.
const raceEnabled = true
