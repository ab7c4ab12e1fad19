package vlogs

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/evidence"
)

// The columns cordon writes beside the event's own fields. A record holds
// the event whole (fieldEvent, what reads return) and a column per field a
// query can name, in the form its translation expects: exact values as
// they are (dst_host lowercased), lists and the words of text one per
// line, numbers in decimal, zero and empty left out as the index leaves
// them out.
const (
	fieldCase     = "cordon_case"     // stream field: the case the event belongs to
	fieldReplaced = "cordon_rep"      // stream field of replacements: "1"
	fieldTime     = "cordon_time"     // the event's time, read as _time
	fieldEvent    = "cordon_ev"       // the event whole (wholeEvent)
	fieldSort     = "cordon_sk"       // time and id as letters: the order of the timeline
	fieldKey      = "cordon_key"      // id/revision: this record
	fieldReplaces = "cordon_replaces" // the key of the record a replacement supersedes
	fieldBatch    = "cordon_b"        // the write that sent the record: how what landed is counted
	fieldHostRaw  = "cordon_dst_host" // dst_host as ingested, for the counts
	wordsPrefix   = "cordon_w_"       // the words of a text field, one per line
	wordsRest     = wordsPrefix + "rest"
)

// textColumns are the word columns a bare word searches.
var textColumns = []string{wordsPrefix + "message", wordsPrefix + "cmdline", wordsPrefix + "url", wordsPrefix + "path", wordsRest}

// column is where a field's values are kept for queries.
func column(name string) string {
	f, _ := evidence.LookupField(name)
	if f.Type() == evidence.FieldText {
		return wordsPrefix + name
	}
	return name
}

// sortKey orders records by time, then id, as VictoriaLogs' natural sort
// and string comparisons both read it: letters only (a number would be
// compared as a number), the time as 16 letters of its offset nanoseconds,
// then the id's bytes two letters each.
func sortKey(t time.Time, id string) string {
	var b strings.Builder
	b.Grow(16 + 2*len(id))
	n := uint64(t.UnixNano()) ^ 1<<63
	for i := 60; i >= 0; i -= 4 {
		b.WriteByte('a' + byte(n>>uint(i)&15))
	}
	for i := 0; i < len(id); i++ {
		b.WriteByte('a' + id[i]>>4)
		b.WriteByte('a' + id[i]&15)
	}
	return b.String()
}

// representable reports a time VictoriaLogs can store and sortKey order:
// within the nanoseconds an int64 counts from 1970.
func representable(t time.Time) bool {
	return t.Year() > 1677 && t.Year() < 2262
}

func recordKey(id string, rev int) string { return id + "/" + strconv.Itoa(rev) }

// revision reads the revision out of a record key.
func revision(key string) int {
	i := strings.LastIndexByte(key, '/')
	n, _ := strconv.Atoi(key[i+1:])
	return n
}

// recordColumns are the fields a record keeps a column of (every field a
// query may name but the time, which is _time), each looked up once.
var recordColumns = func() (out []recordColumn) {
	for _, name := range evidence.Fields() {
		if f, _ := evidence.LookupField(name); f.Type() != evidence.FieldTime {
			out = append(out, recordColumn{f, column(name)})
		}
	}
	return out
}()

type recordColumn struct {
	f      evidence.Field
	column string // where its values are kept
}

// appendRecord appends the JSON line of one event's record to dst. It
// writes the object itself rather than through a map and encoding/json:
// on an ingest this was a fifth of cordon's CPU.
func appendRecord(dst []byte, caseID, batch string, ev *evidence.Event, rev int, replaces string) ([]byte, error) {
	if !representable(ev.Time) {
		return dst, fmt.Errorf("event %s at %s: VictoriaLogs keeps times from 1678 to 2261 only", ev.ID, ev.Time.Format(time.RFC3339))
	}
	whole, err := wholeEvent(ev)
	if err != nil {
		return dst, err
	}
	dst = append(dst, '{')
	dst = appendPair(dst, fieldCase, caseID)
	dst = appendPair(dst, fieldTime, ev.Time.UTC().Format(time.RFC3339Nano))
	dst = appendPair(dst, fieldEvent, string(whole))
	dst = appendPair(dst, fieldSort, sortKey(ev.Time, ev.ID))
	dst = appendPair(dst, fieldKey, recordKey(ev.ID, rev))
	dst = appendPair(dst, fieldBatch, batch)
	dst = appendPair(dst, "message", ev.Message)
	if replaces != "" {
		dst = appendPair(dst, fieldReplaced, "1")
		dst = appendPair(dst, fieldReplaces, replaces)
	}
	if ev.DstHost != "" {
		dst = appendPair(dst, fieldHostRaw, ev.DstHost)
	}
	for _, c := range recordColumns {
		if c.f.Type() == evidence.FieldText {
			if v := words(c.f.Texts(ev)...); v != "" {
				dst = appendPair(dst, c.column, v)
			}
		} else if vs := c.f.Values(ev); len(vs) > 0 {
			dst = appendPair(dst, c.column, strings.Join(vs, "\n"))
		}
	}
	if v := words(ev.DstHost, evidence.RawText(cut(ev.Raw, evidence.MaxAllRaw))); v != "" {
		dst = appendPair(dst, wordsRest, v)
	}
	dst[len(dst)-1] = '}' // the last pair's comma
	return append(dst, '\n'), nil
}

// wholeEvent is the event as the record keeps it whole: its text form
// (evidence.AppendEventText), which the record's JSON line escapes once
// where the event's JSON, quoted in it, was escaped twice (an ingest
// spent a fifth of its CPU writing it so); or, for an event whose text is
// not valid UTF-8, which the line would change, its JSON as before.
// Records of either form are read (decodeEvent).
func wholeEvent(ev *evidence.Event) ([]byte, error) {
	if ev.ValidText() {
		return evidence.AppendEventText(nil, ev), nil
	}
	return json.Marshal(ev)
}

// appendPair appends "key":"value", to a JSON object.
func appendPair(dst []byte, key, value string) []byte {
	dst = appendString(dst, key)
	dst = append(dst, ':')
	dst = appendString(dst, value)
	return append(dst, ',')
}

// appendString appends s as a JSON string: invalid UTF-8 becomes U+FFFD,
// as encoding/json writes it.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// cut is s's first n bytes.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// decode reads the event a record holds.
func decode(row map[string]string) (evidence.Event, error) {
	var ev evidence.Event
	s, ok := row[fieldEvent]
	if !ok {
		return ev, fmt.Errorf("victorialogs record without %s", fieldEvent)
	}
	err := decodeEvent([]byte(s), &ev)
	return ev, err
}
