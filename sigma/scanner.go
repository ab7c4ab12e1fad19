package sigma

// A scanner finds, in one pass over a value, every key it holds (ASCII,
// lowercase; the value is lowercased as it is read): the Aho–Corasick
// automaton, with each state's moves for every ASCII byte worked out
// when it is built, so that reading a byte is one table look-up.
type scanner struct {
	next [][128]int32
	out  [][]int // per state, the slots of the keys that end there
}

func newScanner(keys map[string][]int) *scanner {
	s := &scanner{next: make([][128]int32, 1), out: make([][]int, 1)}
	// the trie; 0 is the root, and a move of 0 from a state other than
	// the root is "none yet" until the failure moves fill it in
	for key, slots := range keys {
		st := int32(0)
		for i := 0; i < len(key); i++ {
			c := key[i]
			if s.next[st][c] == 0 {
				s.next = append(s.next, [128]int32{})
				s.out = append(s.out, nil)
				s.next[st][c] = int32(len(s.next) - 1)
			}
			st = s.next[st][c]
		}
		s.out[st] = append(s.out[st], slots...)
	}
	// breadth first: a state's failure is the longest proper suffix of
	// its path that is a path too; its missing moves are its failure's
	fail := make([]int32, len(s.next))
	queue := []int32{}
	for c := 0; c < 128; c++ {
		if st := s.next[0][c]; st != 0 {
			queue = append(queue, st)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		s.out[st] = append(s.out[st], s.out[fail[st]]...)
		for c := 0; c < 128; c++ {
			if nx := s.next[st][c]; nx != 0 {
				fail[nx] = s.next[fail[st]][c]
				queue = append(queue, nx)
			} else {
				s.next[st][c] = s.next[fail[st]][c]
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
		st = s.next[st][c&0x7f]
		if o := s.out[st]; len(o) > 0 {
			found(o)
		}
	}
}
