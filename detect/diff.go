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
	h := sha256.New()
	for _, id := range f.Events {
		h.Write([]byte(id))
		h.Write([]byte{0})
	}
	return Mark{Detector: f.Detector, Agent: f.Agent, Severity: f.Severity, Start: f.Start, End: f.End,
		Matches: f.Matches, Events: len(f.Events), Digest: hex.EncodeToString(h.Sum(nil)[:8])}
}

// Same reports whether two Marks are of the same state of a finding: the
// same severity, agent, span, matches and evidence.
func (m Mark) Same(o Mark) bool {
	return m.Severity == o.Severity && m.Agent == o.Agent && m.End.Equal(o.End) && m.Start.Equal(o.Start) &&
		m.Matches == o.Matches && m.Events == o.Events && m.Digest == o.Digest
}

// Marks are the Marks of findings by id.
func Marks(found []Finding) map[string]Mark {
	out := make(map[string]Mark, len(found))
	for i := range found {
		out[found[i].ID] = MarkOf(&found[i])
	}
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
