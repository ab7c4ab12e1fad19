package report

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
)

// Received is one input as the journal's evidence_received entries record
// it: the digest of its latest entry, the records of all of them.
type Received struct {
	Path    string `json:"path"` // resolved, or "stdin"
	Format  string `json:"format"`
	Size    int64  `json:"size"`
	Read    int64  `json:"read"` // bytes the digest covers
	SHA256  string `json:"sha256"`
	Whole   bool   `json:"whole"` // the digest is the whole file's as it was then
	Gzip    string `json:"decompressed_sha256,omitempty"`
	Records int    `json:"records"`
	Rejects int    `json:"rejects"`
	// First and Last bound the events read from it.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// By and At are who received it last and when; Entries how many times
	// the journal records it (once per ingest that read something new).
	By      string    `json:"by"`
	At      time.Time `json:"at"`
	Entries int       `json:"entries"`
	Error   string    `json:"error,omitempty"`
}

// evidenceReceived folds the evidence_received entries into one line per
// input, in the order they were first received.
func evidenceReceived(entries []journal.Entry) []Received {
	var out []Received
	at := map[string]int{}
	for _, e := range entries {
		if e.Type != journal.EntryEvidenceReceived {
			continue
		}
		var rc incident.Receipt
		if json.Unmarshal(e.Payload, &rc) != nil {
			continue
		}
		path := rc.Resolved
		if rc.Stdin {
			path = "stdin"
		}
		i, ok := at[path]
		if !ok || rc.Stdin {
			i = len(out)
			at[path] = i
			out = append(out, Received{Path: path})
		}
		r := &out[i]
		r.Format, r.Size, r.Read, r.SHA256, r.Whole, r.Gzip = rc.Format, rc.Size, rc.Read, rc.SHA256, rc.ToEnd, rc.PlainSHA256
		r.Records += rc.Records
		r.Rejects += rc.Rejects
		if !rc.First.IsZero() && (r.First.IsZero() || rc.First.Before(r.First)) {
			r.First = rc.First.UTC()
		}
		if rc.Last.After(r.Last) {
			r.Last = rc.Last.UTC()
		}
		r.By, r.At, r.Error = e.Actor.Name, e.Time.UTC(), rc.Error
		r.Entries++
	}
	return slices.Clip(out)
}
