package incident

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
)

// Suppression is a responder's judgement that some findings are noise,
// kept on the record: who, when, why. It never removes a finding, and the
// kill-switch checks, the containment status and every verdict ignore
// it; views show how many findings it covers.
type Suppression struct {
	// ID names it: "S" and the sequence number of its journal entry.
	ID string `json:"id"`
	detect.Scope
	Reason string        `json:"reason"`
	By     journal.Actor `json:"by"`
	At     time.Time     `json:"at"`
	// From is "cordon.yaml sha256:…" for one the configuration set, empty
	// for one a responder added.
	From string `json:"from,omitempty"`
}

// SuppressConfig is a suppression as cordon.yaml writes it.
type SuppressConfig struct {
	detect.Scope `yaml:",inline"`
	Reason       string `yaml:"reason"`
}

// suppressionPayload is what the journal entry keeps besides its reason
// (the entry's text).
type suppressionPayload struct {
	detect.Scope
	From string `json:"from,omitempty"`
}

// ErrSuppression: a suppression that cannot be recorded as asked.
var ErrSuppression = errors.New("suppression")

func checkScope(s detect.Scope, reason string) error {
	switch {
	case strings.TrimSpace(s.Detector) == "":
		return errors.New("a suppression names a detector")
	case strings.TrimSpace(reason) == "":
		return errors.New("a suppression needs a reason")
	}
	if s.Query != "" {
		if _, err := evidence.Parse(s.Query); err != nil {
			return fmt.Errorf("query: %v", err)
		}
	}
	return nil
}

// Suppress journals a suppression by actor. The detector must be one of
// the workspace's rules, and a reason is required: the suppression is a
// judgement and the report lists it.
func (w *Workspace) Suppress(ctx context.Context, actor journal.Actor, s detect.Scope, reason string) (Suppression, error) {
	if actor.Observer {
		return Suppression{}, journal.ErrReadOnly
	}
	if err := checkScope(s, reason); err != nil {
		return Suppression{}, fmt.Errorf("%w: %v", ErrSuppression, err)
	}
	rules, err := w.rules()
	if err != nil {
		return Suppression{}, err
	}
	known := false
	for _, r := range rules {
		known = known || r.ID == s.Detector
	}
	if !known {
		return Suppression{}, fmt.Errorf("%w: no detector %q (cordon findings names them)", ErrSuppression, s.Detector)
	}
	e, err := w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntrySuppression, Text: strings.TrimSpace(reason)}, suppressionPayload{Scope: s})
	if err != nil {
		return Suppression{}, err
	}
	return suppressionOf(e), nil
}

func suppressionOf(e journal.Entry) Suppression {
	var p suppressionPayload
	_ = json.Unmarshal(e.Payload, &p) // a payload that does not read covers nothing: no detector
	return Suppression{ID: fmt.Sprintf("S%d", e.Seq), Scope: p.Scope, Reason: e.Text, By: e.Actor, At: e.Time.UTC(), From: p.From}
}

// Suppressions are the suppressions on the record, oldest first. Those
// cordon.yaml sets are journaled the first time a workspace reads them,
// with the file's digest, so that an edited file is journaled again; on a
// journal that cannot be written they are not on the record and so do not
// apply.
func (w *Workspace) Suppressions(ctx context.Context) ([]Suppression, error) {
	entries, err := w.journal.Entries()
	if err != nil {
		return nil, err
	}
	// A journal this process may not write (read-only media, a workspace
	// others can read) leaves them off the record: readers still work.
	if added, _ := w.journalConfigSuppressions(ctx, entries); added {
		if entries, err = w.journal.Entries(); err != nil {
			return nil, err
		}
	}
	var out []Suppression
	for _, e := range entries {
		if e.Type == journal.EntrySuppression {
			out = append(out, suppressionOf(e))
		}
	}
	return out, nil
}

// journalConfigSuppressions journals cordon.yaml's suppressions once per
// digest of the file, unless entries (the journal as read) hold them; it
// reports whether it added any.
func (w *Workspace) journalConfigSuppressions(ctx context.Context, entries []journal.Entry) (bool, error) {
	c, err := w.Config()
	if err != nil || len(c.Suppress) == 0 {
		return false, nil // a configuration that does not load is reported by its readers
	}
	b, err := os.ReadFile(filepath.Join(w.Dir, configFile))
	if err != nil {
		return false, nil
	}
	sum := sha256.Sum256(b)
	from := configFile + " sha256:" + hex.EncodeToString(sum[:])
	has := func(list []journal.Entry) bool {
		for _, e := range list {
			if e.Type == journal.EntrySuppression && suppressionOf(e).From == from {
				return true
			}
		}
		return false
	}
	if has(entries) {
		return false, nil
	}
	w.suppressMu.Lock()
	defer w.suppressMu.Unlock()
	// another console of this process may have journaled them meanwhile
	if entries, err = w.journal.Entries(); err != nil || has(entries) {
		return false, err
	}
	actor := journal.CurrentActor(configFile)
	for _, s := range c.Suppress {
		if _, err := w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntrySuppression, Text: strings.TrimSpace(s.Reason)},
			suppressionPayload{Scope: s.Scope, From: from}); err != nil {
			return true, err
		}
	}
	return true, nil
}

// SuppressedBy says which suppressions cover each finding: finding id ->
// suppression ids. A query suppression covers a finding when every one of
// its events matches the query.
func (w *Workspace) SuppressedBy(ctx context.Context, fs []detect.Finding, sups []Suppression) (map[string][]string, error) {
	out := map[string][]string{}
	for _, s := range sups {
		var q evidence.Query
		if s.Query != "" && w.isHeld() && w.heldReads != "" {
			// matched on the index, which another process holds: it
			// covers nothing here (the findings are listed unsuppressed)
			if w.heldUnmatched == nil {
				w.heldUnmatched = map[string]bool{}
			}
			w.heldUnmatched[s.ID] = true
			continue
		}
		if s.Query != "" {
			var err error
			if q, err = evidence.Parse(s.Query); err != nil {
				continue // journaled before the syntax changed: it covers nothing
			}
		}
		for _, f := range fs {
			if !s.CoversFields(f) {
				continue
			}
			if s.Query != "" {
				all, err := w.allMatch(ctx, f.Events, q)
				if err != nil {
					return nil, err
				}
				if !all {
					continue
				}
			}
			out[f.ID] = append(out[f.ID], s.ID)
		}
	}
	return out, nil
}

// allMatch reports whether q matches every event of ids.
func (w *Workspace) allMatch(ctx context.Context, ids []string, q evidence.Query) (bool, error) {
	if len(ids) == 0 {
		return false, nil
	}
	const chunk = 500
	for i := 0; i < len(ids); i += chunk {
		part := ids[i:min(i+chunk, len(ids))]
		h, err := w.store.Search(ctx, evidence.Request{Query: evidence.And(evidence.IDs(part...), q), Limit: 1})
		if err != nil {
			return false, err
		}
		if h.Total < uint64(len(part)) {
			return false, nil
		}
	}
	return true, nil
}
