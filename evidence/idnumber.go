package evidence

// An id MakeID gives is 16 lower-case hex digits: 8 bytes as a number.
// What keeps many ids (the detectors' citations, capabilities' uses in
// the making) keeps them as numbers where it can: a slice of numbers
// holds no pointer, so the collector never scans it. An id of any other
// shape (a test's "e1", an id a publisher chose) does not pack, and is
// kept as its string.

// PackID gives id as a number, and whether it has the shape PackID keeps
// exactly (UnpackID gives it back byte for byte).
func PackID(id string) (uint64, bool) {
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

// UnpackID is the id PackID made n of.
func UnpackID(n uint64) string {
	var b [16]byte
	return string(AppendID(b[:0], n))
}

// AppendID appends the id PackID made n of to b.
func AppendID(b []byte, n uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, digits[n>>uint(shift)&0xf])
	}
	return b
}
