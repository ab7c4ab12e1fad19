package detect

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"time"
)

// Mark is what tells one state of a finding from another: a reader that
// kept a finding's Mark knows whether the finding it sees now is the same
// (same Mark), grown or changed (same id, another Mark), or new. It is
// small enough to keep for every finding a watcher published (the events'
// ids are kept as a digest). Detector, Title, Start and Phase come along so
// that a withdrawn finding can still be named from its Mark alone.
type Mark struct {
	Detector string    `json:"detector"`
	Agent    string    `json:"agent"`
	Severity string    `json:"severity"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Matches  int       `json:"matches"`
	Events   int       `json:"event_count"`
	// Digest is a SHA-256 of the events' ids in order (16 hex digits).
	Digest string `json:"events_digest"`
}

// MarkOf is f's Mark.
func MarkOf(f *Finding) Mark {
	return markWith(f, eventsDigest(f.Events, nil))
}

func markWith(f *Finding, digest string) Mark {
	return Mark{Detector: f.Detector, Agent: f.Agent, Severity: f.Severity, Start: f.Start, End: f.End,
		Matches: f.Matches, Events: len(f.Events), Digest: digest}
}

// eventsDigest is the digest of ids (each followed by a zero byte), made
// in buf, which it may grow: one hash over one buffer, not a write of a
// copy of each id.
func eventsDigest(ids []string, buf *[]byte) string {
	var b []byte
	if buf != nil {
		b = (*buf)[:0]
	}
	for _, id := range ids {
		b = append(append(b, id...), 0)
	}
	if buf != nil {
		*buf = b
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Same reports whether two Marks are of the same state of a finding: the
// same severity, agent, span, matches and evidence.
func (m Mark) Same(o Mark) bool {
	return m.Severity == o.Severity && m.Agent == o.Agent && m.End.Equal(o.End) && m.Start.Equal(o.Start) &&
		m.Matches == o.Matches && m.Events == o.Events && m.Digest == o.Digest
}

// Marks are the Marks of findings by id.
func Marks(found []Finding) map[string]Mark {
	var d Digests
	return d.Marks(found)
}

// Digests makes the Marks of a pass's answers one after another (a
// follow's rounds), remembering each finding's events digest from the
// answer before. An answer shares a finding's events with the one before
// when its episode did not grow (Pass.View: read only, an append
// reallocates), so the same events slice, the same first element and
// length, has the same digest; a slice made anew is hashed again. At a
// million events a round hashed every cited id of every finding, a fifth
// of the detectors' time in a busy follow. Its zero value is ready;
// it is not safe for concurrent use.
type Digests struct {
	last map[digestKey]string
	buf  []byte
}

// digestKey is an events slice by identity. It points at the slice's
// first element (nil for no events), so while remembered the array
// cannot be freed and its address reused by other events.
type digestKey struct {
	first *string
	n     int
}

// Marks are the Marks of found by id; the digests remembered are then
// found's.
func (d *Digests) Marks(found []Finding) map[string]Mark {
	out := make(map[string]Mark, len(found))
	next := make(map[digestKey]string, len(found))
	for i := range found {
		f := &found[i]
		k := digestKey{n: len(f.Events)}
		if k.n > 0 {
			k.first = &f.Events[0]
		}
		digest, ok := d.last[k]
		if !ok {
			digest = eventsDigest(f.Events, &d.buf)
		}
		next[k] = digest
		out[f.ID] = markWith(f, digest)
	}
	d.last = next
	return out
}

// Change is what the findings now are against the Marks kept before, by
// id: created (new ids, in the order of the findings), updated (the same
// id in another state: its episode grew, its severity changed) and
// withdrawn (ids kept and gone now: a late session record moved their
// events, a rule changed), sorted.
type Change struct {
	Created, Updated, Withdrawn []string
}

// Diff compares findings with the Marks kept before them.
func Diff(before map[string]Mark, after []Finding) Change {
	return diff(before, after, func(f *Finding) Mark { return MarkOf(f) })
}

// DiffMarks is Diff given the Marks of after already made (by id).
func DiffMarks(before map[string]Mark, after []Finding, marks map[string]Mark) Change {
	return diff(before, after, func(f *Finding) Mark { return marks[f.ID] })
}

func diff(before map[string]Mark, after []Finding, markOf func(*Finding) Mark) Change {
	ch := Change{Created: []string{}, Updated: []string{}, Withdrawn: []string{}}
	seen := make(map[string]bool, len(after))
	for i := range after {
		f := &after[i]
		seen[f.ID] = true
		m, ok := before[f.ID]
		switch {
		case !ok:
			ch.Created = append(ch.Created, f.ID)
		case !m.Same(markOf(f)):
			ch.Updated = append(ch.Updated, f.ID)
		}
	}
	for id := range before {
		if !seen[id] {
			ch.Withdrawn = append(ch.Withdrawn, id)
		}
	}
	sort.Strings(ch.Withdrawn)
	return ch
}
