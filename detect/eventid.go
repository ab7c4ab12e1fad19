package detect

// A correlator that keeps many events for citing keeps their ids as
// numbers where it can: the 16 lower-case hex digits evidence.MakeID
// gives are 8 bytes. A slice of such ids holds no pointer, so the
// collector never scans it; at ten million events the pass cites millions
// of events, and marking their id strings on every cycle made a replay
// slower per event than at one million. An id of any other shape (a
// test's "e1", an id a publisher chose) is kept as its string beside.

// packID gives id as a number, and whether it has the shape packID keeps
// exactly (unpackID gives it back byte for byte).
func packID(id string) (uint64, bool) {
	if len(id) != 16 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

// unpackID is the id packID made n of.
func unpackID(n uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[n&0xf]
		n >>= 4
	}
	return string(b[:])
}
