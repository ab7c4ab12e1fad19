package platform

import "errors"

// ErrWouldBlock is returned by Lock without wait when another open file
// holds a conflicting lock.
var ErrWouldBlock = errors.New("the file is locked by another process")

// Mode says how a lock is shared.
type Mode int

// Shared locks may be held by many readers at once; an Exclusive lock by
// one writer, with no reader.
const (
	Shared Mode = iota
	Exclusive
)
