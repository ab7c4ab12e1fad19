package parsetest

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/ingest/parse"
)

// Fuzz seeds a parser's fuzz target with every sample file and every line
// of them (and, for a JSON format, each line again with a key repeated),
// and checks that parsing arbitrary bytes never panics and always yields
// events with a time, or an error, and that a record with a repeated key
// has its events flagged (parse.FlagDuplicates, as ingest does): every
// one made of the whole record, and each made of a part of it (a span, a
// call) whose part repeats a key or whose record hid one from every part.
func Fuzz(f *testing.F, p parse.Parser, samples ...string) {
	for _, s := range samples {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
			for _, dup := range duplicated(line) {
				f.Add(dup)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff(data)
		evs, err := p.Parse(parse.Record{Data: data, Line: 1})
		if err != nil {
			return
		}
		hidden := parse.FlagDuplicates(data, evs)
		if len(parse.DuplicateKeys(data)) > 0 && bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			for _, ev := range evs {
				// an event of a part of the record (a span, a call of a
				// Records file) answers for the keys of its part; one of
				// the whole record, or of a record that hid a key from
				// every part, for every key
				whole := ev.Raw == "" || ev.Raw == string(data) || len(hidden) > 0
				if !whole && len(parse.DuplicateKeys([]byte(ev.Raw))) == 0 {
					continue
				}
				if !slices.ContainsFunc(ev.Tags, func(t string) bool { return strings.HasPrefix(t, parse.TagDupKey) }) {
					t.Errorf("event from %q has no %s tag: %v", data, parse.TagDupKey, ev.Tags)
				}
			}
		}
		for _, ev := range evs {
			if parse.Normalize(&ev) != nil {
				continue // the driver rejects it
			}
			if _, err := json.Marshal(ev); err != nil {
				t.Errorf("event from %q does not serialize: %v", data, err)
			}
			if ev.Time.IsZero() {
				t.Errorf("event without time from %q", data)
			}
			if ev.Kind == "" {
				t.Errorf("event without kind from %q", data)
			}
		}
	})
}

// duplicated gives a JSON object's line with its first key repeated: once
// before it (the decoder keeps the original, last value) and once after
// the last (a second value hides it), and its first nested object's first
// key repeated the same way.
func duplicated(line []byte) [][]byte {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) || len(line) < 2 || line[0] != '{' {
		return nil
	}
	var out [][]byte
	for _, at := range []int{0, bytes.IndexByte(line[1:], '{') + 1} {
		if at < 0 || at >= len(line) || line[at] != '{' {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line[at:]))
		if _, err := dec.Token(); err != nil {
			continue
		}
		k, err := dec.Token()
		key, ok := k.(string)
		if err != nil || !ok {
			continue
		}
		q, _ := json.Marshal(key)
		before := slices.Concat(line[:at+1], q, []byte(`:"hidden",`), line[at+1:])
		out = append(out, before)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			continue
		}
		end := at + int(dec.InputOffset()) // just past the first member
		after := slices.Concat(line[:end], []byte(`,`), q, []byte(`:{"shadow":true}`), line[end:])
		out = append(out, after)
	}
	return out
}
