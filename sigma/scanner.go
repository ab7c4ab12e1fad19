package sigma

// A scanner finds, in one pass over a value, every key it holds (ASCII,
// lowercase; the value is lowercased as it is read): the Aho–Corasick
// automaton, with each state's move on every byte worked out when it is
// built, so that reading a byte is two table look-ups. Bytes no key has
// share one class, so a state's moves take a byte per class the keys
// use, not one per ASCII byte.
type scanner struct {
	class [128]uint8 // byte -> its class (0: in no key)
	width int        // classes
	next  []int32    // state*width + class -> state
	out   [][]int    // per state, the slots of the keys that end there
}

// maxScanBytes bounds the keys of one field's scanner (their bytes, which
// bound its states): past it, a filter is left unanchored, tried whole.
const maxScanBytes = 1 << 16

func newScanner(keys map[string][]int) *scanner {
	s := &scanner{width: 1}
	for key := range keys {
		for i := 0; i < len(key); i++ {
			if c := key[i] & 0x7f; s.class[c] == 0 {
				s.class[c] = uint8(s.width)
				s.width++
			}
		}
	}
	s.next = make([]int32, s.width)
	s.out = make([][]int, 1)
	// the trie; 0 is the root, and a move of 0 from a state other than
	// the root is "none yet" until the failure moves fill it in
	for key, slots := range keys {
		st := int32(0)
		for i := 0; i < len(key); i++ {
			at := int(st)*s.width + int(s.class[key[i]&0x7f])
			if s.next[at] == 0 {
				s.next = append(s.next, make([]int32, s.width)...)
				s.out = append(s.out, nil)
				s.next[at] = int32(len(s.out) - 1)
			}
			st = s.next[at]
		}
		s.out[st] = append(s.out[st], slots...)
	}
	// breadth first: a state's failure is the longest proper suffix of
	// its path that is a path too; its missing moves are its failure's
	fail := make([]int32, len(s.out))
	var queue []int32
	for c := 1; c < s.width; c++ {
		if st := s.next[c]; st != 0 {
			queue = append(queue, st)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		s.out[st] = append(s.out[st], s.out[fail[st]]...)
		row, frow := int(st)*s.width, int(fail[st])*s.width
		for c := 1; c < s.width; c++ {
			if nx := s.next[row+c]; nx != 0 {
				fail[nx] = s.next[frow+c]
				queue = append(queue, nx)
			} else {
				s.next[row+c] = s.next[frow+c]
			}
		}
	}
	return s
}

// each calls found with the slots of every key v holds (v is ASCII).
func (s *scanner) each(v string, found func([]int)) {
	st := int32(0)
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		st = s.next[int(st)*s.width+int(s.class[c&0x7f])]
		if o := s.out[st]; len(o) > 0 {
			found(o)
		}
	}
}
