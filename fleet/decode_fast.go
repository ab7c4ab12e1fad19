package fleet

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/cordon-ir/cordon/evidence"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Reading an event through the general decoder (reflection, a field
// looked up per name, a string escaped in the message made twice) was the
// largest of a watcher's own costs after the pass itself
// (docs/performance.md). What Encode writes is narrower: one object, every
// name a field's own and given once, strings, integers, the time, lists of
// strings. decodeFast reads just that shape, and says no to anything else
// (a name in another case, a null, a number with a fraction, an escape or
// a byte it does not take as given): the message is then read by the
// general decoder, whose answer or error is the one given. So the fast
// path never decides: it either reads exactly what the general decoder
// would, or leaves the message to it (TestDecodeFastReadsAsDecoderDoes and
// FuzzDecodeFast compare the two).

// eventField is where a member of the event's JSON goes.
type eventField struct {
	off  uintptr
	kind fieldKind
	bit  uint64 // its place in the set of names seen
}

type fieldKind uint8

const (
	kString fieldKind = iota
	kInt
	kInt64
	kTime
	kStrings
)

// fieldTable holds each JSON name of evidence.Event and its field, by
// the name's length (a few names of each: comparing them is cheaper than
// hashing the name).
type fieldTable [32][]namedField

type namedField struct {
	name string
	eventField
}

func (t *fieldTable) lookup(name []byte) (eventField, bool) {
	if len(name) >= len(t) {
		return eventField{}, false
	}
	for _, f := range t[len(name)] {
		if f.name == string(name) {
			return f.eventField, true
		}
	}
	return eventField{}, false
}

// eventFields is built once from the type, so that a field added later
// is read (or, of a kind not taken here, left to the general decoder)
// without a list to keep.
var eventFields = sync.OnceValue(func() *fieldTable {
	t := reflect.TypeFor[evidence.Event]()
	out := new(fieldTable)
	n := 0
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() || n == 64 || len(name) >= len(out) {
			continue
		}
		var k fieldKind
		switch {
		case f.Type == reflect.TypeFor[time.Time]():
			k = kTime
		case f.Type == reflect.TypeFor[[]string]():
			k = kStrings
		case f.Type == reflect.TypeFor[string]():
			k = kString
		case f.Type == reflect.TypeFor[int]():
			k = kInt
		case f.Type == reflect.TypeFor[int64]():
			k = kInt64
		default:
			continue // the general decoder reads it
		}
		out[len(name)] = append(out[len(name)], namedField{name, eventField{off: f.Offset, kind: k, bit: 1 << n}})
		n++
	}
	return out
})

// decodeScratch is what a decoding keeps for the next: the buffer strings with
// escapes are unquoted into, and the short strings made lately (an
// agent's, a source's, a host's values come again and again: made once,
// they cost one allocation, not one an event).
type decodeScratch struct {
	unq     []byte
	strings [256]string
}

var scratches = sync.Pool{New: func() any { return new(decodeScratch) }}

// decodeFast reads data into ev (zero) if it has the shape Encode writes;
// false leaves ev partly written, to be zeroed and read again by the
// general decoder.
func decodeFast(data []byte, ev *evidence.Event) bool {
	sc := scratches.Get().(*decodeScratch)
	s := scanner{b: data, sc: sc}
	ok := s.event(ev, eventFields())
	scratches.Put(sc)
	return ok
}

type scanner struct {
	b  []byte
	i  int
	sc *decodeScratch
}

// makeString is string(b), the same string as the last one made of the
// same bytes where it is short.
func (sc *decodeScratch) makeString(b []byte) string {
	if len(b) < 2 || len(b) > 64 {
		return string(b)
	}
	h := uint(len(b)) * 0x9E3779B1
	for _, c := range [...]byte{b[0], b[1], b[len(b)/2], b[len(b)-2], b[len(b)-1]} {
		h = (h ^ uint(c)) * 0x01000193
	}
	p := &sc.strings[h%uint(len(sc.strings))]
	if *p != string(b) {
		*p = string(b)
	}
	return *p
}

func (s *scanner) event(ev *evidence.Event, fields *fieldTable) bool {
	s.space()
	if !s.eat('{') {
		return false
	}
	var seen uint64
	s.space()
	if !s.eat('}') {
		for {
			name, ok := s.name()
			if !ok {
				return false
			}
			f, ok := fields.lookup(name)
			if !ok || seen&f.bit != 0 {
				return false // another case, an unknown name, or a name given twice
			}
			seen |= f.bit
			s.space()
			if !s.eat(':') {
				return false
			}
			s.space()
			p := unsafe.Add(unsafe.Pointer(ev), f.off)
			switch f.kind {
			case kString:
				if *(*string)(p), ok = s.str(); !ok {
					return false
				}
			case kInt:
				n, ok := s.int()
				if !ok || int64(int(n)) != n {
					return false
				}
				*(*int)(p) = int(n)
			case kInt64:
				if *(*int64)(p), ok = s.int(); !ok {
					return false
				}
			case kTime:
				// the time's own reading is the general decoder's
				raw, ok := s.rawStr()
				if !ok || jsonv2.Unmarshal(raw, (*time.Time)(p), decodeOptions) != nil {
					return false
				}
			case kStrings:
				if *(*[]string)(p), ok = s.strs(); !ok {
					return false
				}
			}
			s.space()
			if s.eat('}') {
				break
			}
			if !s.eat(',') {
				return false
			}
			s.space()
		}
	}
	s.space()
	return s.i == len(s.b)
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c if it is next.
func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// rawStrV consumes a string, quotes included; escaped and wide say
// whether it holds an escape and a byte past ASCII.
func (s *scanner) rawStrV() (raw []byte, escaped, wide, ok bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false, false
	}
	for i := s.i + 1; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			raw, s.i = s.b[s.i:i+1], i+1
			return raw, escaped, wide, true
		case c == '\\':
			escaped = true
			i++ // the escaped byte; the unquoting checks the escape
		case c < 0x20:
			return nil, false, false, false
		case c >= utf8.RuneSelf:
			wide = true
		}
	}
	return nil, false, false, false
}

// rawStr consumes a string, quotes included.
func (s *scanner) rawStr() ([]byte, bool) {
	raw, _, _, ok := s.rawStrV()
	return raw, ok
}

// str consumes a string and gives its value; false for an escape or
// UTF-8 that AppendUnquote does not take as given.
func (s *scanner) str() (string, bool) {
	raw, escaped, wide, ok := s.rawStrV()
	if !ok {
		return "", false
	}
	if !escaped && !wide {
		return s.sc.makeString(raw[1 : len(raw)-1]), true
	}
	simple := false
	if !wide { // wide: UTF-8 to check, which AppendUnquote does
		s.sc.unq, simple = unquoteSimple(s.sc.unq[:0], raw[1:len(raw)-1])
	}
	if !simple {
		var err error
		if s.sc.unq, err = jsontext.AppendUnquote(s.sc.unq[:0], raw); err != nil {
			return "", false
		}
	}
	return s.sc.makeString(s.sc.unq), true
}

// name consumes a member's name: plain ASCII without escapes only.
func (s *scanner) name() ([]byte, bool) {
	raw, escaped, wide, ok := s.rawStrV()
	if !ok || escaped || wide {
		return nil, false
	}
	return raw[1 : len(raw)-1], true
}

// int consumes an integer of at most 18 digits (it cannot overflow), in
// JSON's grammar: no leading zero, no fraction, no exponent.
func (s *scanner) int() (int64, bool) {
	neg := s.eat('-')
	start := s.i
	var n int64
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		n = n*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 18 || s.b[start] == '0' && digits > 1 {
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// strs consumes a list of strings (an empty one is an empty list, as the
// general decoder makes it).
func (s *scanner) strs() ([]string, bool) {
	if !s.eat('[') {
		return nil, false
	}
	out := []string{}
	s.space()
	if s.eat(']') {
		return out, true
	}
	for {
		v, ok := s.str()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		s.space()
		if s.eat(']') {
			return out, true
		}
		if !s.eat(',') {
			return nil, false
		}
		s.space()
	}
}

// unquoteSimple appends the value of the body (quotes cut) of a string of
// ASCII bytes whose escapes are all of one byte (\" \\ \/ \b \f \n \r
// \t, \u00XX of ASCII): a raw record inside an event is JSON inside
// JSON, escaped quotes throughout, and the general unquoting checks every
// byte for UTF-8. false for any other escape: AppendUnquote reads that.
func unquoteSimple(dst, body []byte) ([]byte, bool) {
	for {
		j := bytes.IndexByte(body, '\\')
		if j < 0 {
			dst = append(dst, body...)
			break
		}
		dst = append(dst, body[:j]...)
		if j+1 >= len(body) {
			return dst, false
		}
		var c byte
		switch body[j+1] {
		case '"', '\\', '/':
			c = body[j+1]
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'u':
			// encoding/json writes <, > and & as \u003c, \u003e, \u0026
			r, ok := hex4(body[j+2:])
			if !ok || r >= utf8.RuneSelf {
				return dst, false
			}
			dst = append(dst, byte(r))
			body = body[j+6:]
			continue
		default:
			return dst, false
		}
		dst = append(dst, c)
		body = body[j+2:]
	}
	return dst, true
}

// hex4 reads the four hex digits an escape \u starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
