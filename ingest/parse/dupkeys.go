package parse

import (
	"bytes"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Dup is a key one object of a JSON record holds more than once, or in two
// spellings encoding/json takes for one (it matches a struct's fields
// without regard to case). The decoders keep the last value: the earlier
// ones are in no field, only in the record's bytes.
type Dup struct {
	// Path is the keys from the record's root to it, joined by '.' (it
	// as first spelled, the keys above it as they are spelled there);
	// array elements add nothing to it.
	Path string
	// Key is the key itself, as first spelled.
	Key string
	// Spans are where each value lies in the record, in order.
	Spans [][2]int
}

// maxDupDepth is how deep DuplicateKeys looks: encoding/json refuses a
// value nested deeper, so such a record is rejected anyway.
const maxDupDepth = 10000

// DuplicateKeys lists the keys of data, a JSON value, that an object holds
// more than once. It reads one pass over the bytes and, once warm,
// allocates only for what it finds, for objects of more than a few keys,
// and for keys with escapes or outside ASCII: it runs on every JSON
// record. Bytes that are not JSON end the scan, with what it found so far.
func DuplicateKeys(data []byte) []Dup {
	d := dupScanners.Get().(*dupScanner)
	out := d.scan(data)
	if d.big {
		return out // a hostile record's frames are not kept for the next
	}
	d.data, d.out, d.stack = nil, nil, d.stack[:0]
	dupScanners.Put(d)
	return out
}

var dupScanners = sync.Pool{New: func() any { return new(dupScanner) }}

type dupFrame struct {
	object bool
	state  int // for an object: what comes next (want*)
	keys   []dupKey
	index  map[string]int // folded key -> its first index in keys, past linearKeys keys
	dup    map[int]int    // index in keys -> index in the scanner's out
}

const (
	wantKey = iota
	wantColon
	wantValue
	inValue
)

type dupKey struct {
	start, end int    // the key's bytes, quotes excluded
	folded     string // set for keys with escapes or outside ASCII
	val        [2]int // its value's bytes
}

type dupScanner struct {
	data  []byte
	stack []dupFrame // frames past len keep their keys' memory
	out   []Dup
	big   bool // an object of many keys, or deep nesting, was read
}

// linearKeys is how many keys an object holds before a map finds them.
const linearKeys = 16

// maxPooledKeys bounds what a pooled scanner keeps of an object's keys.
const maxPooledKeys = 1024

func (d *dupScanner) scan(data []byte) []Dup {
	d.data, d.stack, d.big = data, d.stack[:0], false
	lastEnd := 0 // just past the last byte that is not space
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		var top *dupFrame
		if n := len(d.stack); n > 0 && d.stack[n-1].object {
			top = &d.stack[n-1]
		}
		if top != nil && top.state == wantValue {
			top.keys[len(top.keys)-1].val[0] = i
			top.state = inValue
		}
		switch c {
		case '"':
			end, ok := stringEnd(data, i)
			if !ok {
				return d.out
			}
			if top != nil && top.state == wantKey {
				d.key(top, i+1, end)
				top.state = wantColon
			}
			i = end
		case ':':
			if top != nil && top.state == wantColon {
				top.state = wantValue
			}
		case '{', '[':
			if !d.push(c == '{') {
				return d.out
			}
		case ',':
			if top != nil {
				d.endValue(top, lastEnd)
				top.state = wantKey
			}
		case '}', ']':
			if len(d.stack) == 0 {
				return d.out
			}
			if top != nil {
				d.endValue(top, lastEnd)
			}
			d.stack = d.stack[:len(d.stack)-1]
		}
		lastEnd = i + 1
	}
	return d.out
}

// push opens an object or array, reusing a frame's memory.
func (d *dupScanner) push(object bool) bool {
	n := len(d.stack)
	if n >= maxDupDepth {
		d.big = true
		return false
	}
	if n < cap(d.stack) {
		d.stack = d.stack[:n+1]
	} else {
		d.stack = append(d.stack, dupFrame{})
	}
	f := &d.stack[n]
	f.object, f.state, f.keys, f.index, f.dup = object, wantKey, f.keys[:0], nil, nil
	if n >= 64 {
		d.big = true
	}
	return true
}

// path is the keys from the root to the current object's key k.
func (d *dupScanner) path(k dupKey) string {
	var b strings.Builder
	for i := range d.stack[:len(d.stack)-1] {
		if f := &d.stack[i]; f.object && len(f.keys) > 0 {
			b.WriteString(d.keyText(f.keys[len(f.keys)-1]))
			b.WriteByte('.')
		}
	}
	b.WriteString(d.keyText(k))
	return b.String()
}

// endValue ends the value of the object's last key at end, and completes
// its span if the key is a duplicate.
func (d *dupScanner) endValue(f *dupFrame, end int) {
	if f.state != inValue {
		return
	}
	i := len(f.keys) - 1
	f.keys[i].val[1] = end
	if j, ok := f.dup[i]; ok {
		spans := d.out[j].Spans
		spans[len(spans)-1] = f.keys[i].val
	}
}

// key adds the key at data[start:end] to the object f.
func (d *dupScanner) key(f *dupFrame, start, end int) {
	k := dupKey{start: start, end: end, val: [2]int{-1, -1}}
	if raw := d.data[start:end]; needsFold(raw) {
		k.folded = foldKey(unquoteKey(raw))
	}
	first := -1
	if f.index != nil {
		if j, ok := f.index[d.folded(k)]; ok {
			first = j
		}
	} else {
		for j := range f.keys {
			if d.sameKey(f.keys[j], k) {
				first = j
				break
			}
		}
	}
	f.keys = append(f.keys, k)
	idx := len(f.keys) - 1
	if idx >= maxPooledKeys {
		d.big = true
	}
	switch {
	case first >= 0:
		if f.dup == nil {
			f.dup = map[int]int{}
		}
		j, ok := f.dup[first]
		if !ok {
			j = len(d.out)
			d.out = append(d.out, Dup{Path: d.path(f.keys[first]), Key: d.keyText(f.keys[first]), Spans: [][2]int{f.keys[first].val}})
			f.dup[first] = j
		}
		d.out[j].Spans = append(d.out[j].Spans, [2]int{-1, -1})
		f.dup[idx] = j
	case f.index != nil:
		f.index[d.folded(k)] = idx
	case len(f.keys) > linearKeys:
		f.index = make(map[string]int, 2*len(f.keys))
		for j := range f.keys {
			if _, ok := f.index[d.folded(f.keys[j])]; !ok {
				f.index[d.folded(f.keys[j])] = j
			}
		}
	}
}

func (d *dupScanner) folded(k dupKey) string {
	if k.folded != "" || k.start == k.end {
		return k.folded
	}
	return foldKey(string(d.data[k.start:k.end]))
}

// sameKey compares two keys as encoding/json matches them.
func (d *dupScanner) sameKey(a, b dupKey) bool {
	if a.folded != "" || b.folded != "" {
		return d.folded(a) == d.folded(b)
	}
	x, y := d.data[a.start:a.end], d.data[b.start:b.end]
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if upperASCII(x[i]) != upperASCII(y[i]) {
			return false
		}
	}
	return true
}

// keyText is a key as it reads, escapes undone.
func (d *dupScanner) keyText(k dupKey) string {
	raw := d.data[k.start:k.end]
	if needsFold(raw) {
		return unquoteKey(raw)
	}
	return string(raw)
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// needsFold: a key with an escape or a byte outside ASCII is folded as a
// string; others are compared byte by byte.
func needsFold(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// foldKey folds a key as encoding/json does to match a struct field.
func foldKey(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			out = append(out, upperASCII(byte(r)))
			continue
		}
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
	}
	return string(out)
}

// unquoteKey undoes a key's escapes; one that does not decode stays as is.
func unquoteKey(raw []byte) string {
	var s string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	if Unmarshal(q, &s) != nil {
		return string(raw)
	}
	return s
}

// stringEnd is the index of the quote that ends the string opening at i.
func stringEnd(data []byte, i int) (int, bool) {
	for j := i + 1; ; {
		q := bytes.IndexByte(data[j:], '"')
		if q < 0 {
			return 0, false
		}
		q += j
		// escaped when an odd number of backslashes stands before it
		n := 0
		for k := q - 1; k > i && data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q, true
		}
		j = q + 1
	}
}
