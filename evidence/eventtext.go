package evidence

import (
	"errors"
	"strconv"
	"time"
)

// The text form of an event, for a store that keeps an event whole in a
// string column (VictoriaLogs): the fields in the binary form's order
// (eventcodec.go), strings as netstrings ("5:agent"), lists as a count
// then their strings ("2;3:abc1:d"), numbers in decimal ("-42;"), after a
// mark of its own ("~1") and the time in UTC ("sec.nsec;"). Unlike the
// event's JSON it quotes nothing, so a store's JSON line escapes the
// event's text once, not twice; and unlike the binary form it is text, so
// the line needs no escapes for its lengths. It is written only for an
// event whose text is valid UTF-8 (ValidText): a line escapes anything
// else, which would change the lengths.

// EventTextMark begins the text form (an event's JSON begins with '{').
const EventTextMark = "~1"

// errEventText: the bytes are not an event in the text form.
var errEventText = errors.New("not an event in the text form")

// AppendEventText appends ev's text form to b. The time is kept in UTC.
func AppendEventText(b []byte, ev *Event) []byte {
	b = append(b, EventTextMark...)
	b = appendNetstring(b, ev.ID)
	b = strconv.AppendInt(b, ev.Time.Unix(), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(ev.Time.Nanosecond()), 10)
	b = append(b, ';')
	for _, s := range ev.stringFields() {
		b = appendNetstring(b, *s)
	}
	for _, l := range ev.listFields() {
		b = strconv.AppendInt(b, int64(len(*l)), 10)
		b = append(b, ';')
		for _, s := range *l {
			b = appendNetstring(b, s)
		}
	}
	for _, n := range ev.intFields() {
		b = strconv.AppendInt(b, int64(*n), 10)
		b = append(b, ';')
	}
	for _, n := range ev.int64Fields() {
		b = strconv.AppendInt(b, *n, 10)
		b = append(b, ';')
	}
	return b
}

// IsEventText reports whether b is in the text form (else it is the
// event's JSON).
func IsEventText(b []byte) bool {
	return len(b) >= len(EventTextMark) && string(b[:len(EventTextMark)]) == EventTextMark
}

// DecodeEventText decodes the text form of one event, the whole of b.
func DecodeEventText(b []byte, ev *Event) error {
	if !IsEventText(b) {
		return errEventText
	}
	r := textReader{b: b[len(EventTextMark):]}
	*ev = Event{}
	ev.ID = r.str()
	sec := r.num('.')
	nsec := r.num(';')
	if nsec < 0 || nsec >= 1e9 {
		r.err = errEventText
	}
	ev.Time = time.Unix(sec, nsec).UTC()
	for _, s := range ev.stringFields() {
		*s = r.str()
	}
	for _, l := range ev.listFields() {
		n := r.num(';')
		if n < 0 || n > int64(len(r.b)) { // every value takes at least two bytes
			r.err = errEventText
		}
		if r.err != nil || n == 0 {
			continue
		}
		vs := make([]string, n)
		for i := range vs {
			vs[i] = r.str()
		}
		*l = vs
	}
	for _, n := range ev.intFields() {
		*n = int(r.num(';'))
	}
	for _, n := range ev.int64Fields() {
		*n = r.num(';')
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errEventText
	}
	return r.err
}

func appendNetstring(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// textReader reads the text form, keeping the first error.
type textReader struct {
	b   []byte
	err error
}

// num reads a decimal number ended by end.
func (r *textReader) num(end byte) int64 {
	if r.err != nil {
		return 0
	}
	i := 0
	for i < len(r.b) && r.b[i] != end && i < 21 {
		i++
	}
	if i == len(r.b) || r.b[i] != end {
		r.err = errEventText
		return 0
	}
	v, err := strconv.ParseInt(string(r.b[:i]), 10, 64)
	if err != nil {
		r.err = errEventText
		return 0
	}
	r.b = r.b[i+1:]
	return v
}

// str reads a netstring.
func (r *textReader) str() string {
	n := r.num(':')
	if r.err != nil {
		return ""
	}
	if n < 0 || n > int64(len(r.b)) {
		r.err = errEventText
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}
