package parse

import (
	"bytes"
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// TagDupKey, followed by a key's path, marks an event whose JSON record
// holds that key more than once (a second "cmd" hiding the first): its
// fields show the last value, as every JSON decoder here keeps it; its raw
// holds each, and its message ends with a note quoting them. Never
// resolved silently: a detector or a person sees both.
const TagDupKey = "dup-key:"

// dupNote starts the note FlagDuplicates adds to a message.
const dupNote = " [dup-key "

// maxDupQuote bounds what a note quotes of each value.
const maxDupQuote = 80

// FlagDuplicates flags the events made from the JSON record data with the
// keys it holds more than once (see TagDupKey). An event whose Raw is a
// part of the record (one call of a Records file) is flagged for the keys
// in its part. A key outside every event's part (a second Records array,
// which hides the first from the parser) flags every event of the record,
// and is returned: the values before its last are in no event, and the
// caller keeps them (ingest rejects them, with their bytes).
func FlagDuplicates(data []byte, evs []evidence.Event) []Dup {
	if len(evs) == 0 || !startsObject(data) {
		return nil
	}
	all := DuplicateKeys(data)
	if len(all) == 0 {
		return nil
	}
	shown := map[string]int{} // duplicates in the events' own parts, by their values
	parts := map[string][]Dup{}
	for i := range evs {
		ev := &evs[i]
		if ev.Raw == "" || ev.Raw == string(data) {
			flag(ev, all, data)
			if _, ok := parts[""]; !ok {
				parts[""] = all
				for _, d := range all {
					shown[dupSig(data, d)]++
				}
			}
			continue
		}
		part := []byte(ev.Raw)
		ds, ok := parts[ev.Raw]
		if !ok {
			if startsObject(part) {
				ds = DuplicateKeys(part)
			}
			parts[ev.Raw] = ds
			for _, d := range ds {
				shown[dupSig(part, d)]++
			}
		}
		flag(ev, ds, part)
	}
	var hidden []Dup
	for _, d := range all {
		if sig := dupSig(data, d); shown[sig] > 0 {
			shown[sig]--
			continue
		}
		hidden = append(hidden, d)
	}
	hidden = slices.DeleteFunc(hidden, func(d Dup) bool { return insideHidden(d, hidden) })
	for i := range evs {
		flag(&evs[i], hidden, data)
	}
	return hidden
}

// KeepDuplicates gives to the flags of from, an event to puts in its place
// (a later stage of the same request): what from's record hid stays said.
func KeepDuplicates(from, to *evidence.Event) {
	for _, t := range from.Tags {
		path, ok := strings.CutPrefix(t, TagDupKey)
		if !ok || slices.Contains(to.Tags, t) {
			continue
		}
		to.Tags = append(to.Tags, t)
		note := dupNote + path + ": "
		if i := strings.Index(from.Message, note); i >= 0 {
			rest := from.Message[i:]
			if j := strings.Index(rest[len(dupNote):], dupNote); j >= 0 {
				rest = rest[:len(dupNote)+j]
			}
			to.Message += rest
		}
	}
}

// flag tags ev with each duplicate of ds, found in src, and notes its
// values at the end of the message.
func flag(ev *evidence.Event, ds []Dup, src []byte) {
	for _, d := range ds {
		tag := TagDupKey + d.Path
		if slices.Contains(ev.Tags, tag) {
			continue
		}
		ev.Tags = append(ev.Tags, tag)
		var vals []string
		for _, sp := range d.Spans {
			if sp[0] < 0 || sp[1] < sp[0] {
				continue
			}
			vals = append(vals, CutText(OneLine(string(src[sp[0]:sp[1]])), maxDupQuote))
		}
		ev.Message += dupNote + d.Path + ": " + strings.Join(vals, " | ") + "]"
	}
}

// insideHidden reports a duplicate within a value another one hides (the
// keys of a hidden Records array's calls): kept with that value, it says
// nothing of the events.
func insideHidden(d Dup, hidden []Dup) bool {
	first := d.Spans[0]
	for _, h := range hidden {
		for _, sp := range h.Spans[:len(h.Spans)-1] {
			if sp[0] <= first[0] && first[1] <= sp[1] && sp != first {
				return true
			}
		}
	}
	return false
}

// dupSig identifies a duplicate by its key and values, wherever it was
// found.
func dupSig(src []byte, d Dup) string {
	var b strings.Builder
	b.WriteString(d.Key)
	for _, sp := range d.Spans {
		b.WriteByte(0)
		if sp[0] >= 0 && sp[1] >= sp[0] {
			b.Write(src[sp[0]:sp[1]])
		}
	}
	return b.String()
}

func startsObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}
