package bgproc

import "crypto/rand"

// IDPrefix starts every process id: proc_ and 6 lowercase alphanumerics.
const IDPrefix = "proc_"

const (
	idChars  = "abcdefghijklmnopqrstuvwxyz0123456789"
	idLength = 6
)

// newID returns a random id, proc_ab12cd. Bytes at or above the largest
// multiple of len(idChars) are skipped, so every character is equally likely.
func newID() string {
	const limit = 256 - 256%len(idChars)
	id := make([]byte, 0, len(IDPrefix)+idLength)
	id = append(id, IDPrefix...)
	var buf [16]byte
	for len(id) < cap(id) {
		rand.Read(buf[:]) // never fails
		for _, b := range buf {
			if int(b) < limit && len(id) < cap(id) {
				id = append(id, idChars[int(b)%len(idChars)])
			}
		}
	}
	return string(id)
}
