package incident

import (
	"fmt"
	"os"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
)

// A follow reads its inputs side by side, and their lines cross in time:
// a proxy flushes its log a few seconds late, a ledger line is written
// when the call ends. The pass takes events in time order only (a
// late one costs a replay of the whole incident), so a follow holds what
// its inputs gave back until every input that is still writing has gone
// past it: the watermark is the least, over the followed inputs heard
// from within Hold (written to: a file's modification time), of the
// latest event time each gave less its stated lateness. An event before
// the watermark is added; one at it or later waits in the index for a
// later round. The events at the watermark wait too: the pass orders the
// events of one instant by id, which no writer keeps, so a round that took
// some of an input's latest instant would find the next round's lines of
// that instant earlier than its last, and replay. An input that gave nothing for
// Hold is not waited for, and nothing is held longer than Hold but the
// latest instant of an input still written: past it the round adds
// everything before that instant, and an input whose events then come
// earlier than what was added (a clock that runs behind by more than
// Hold) makes the pass replay, as before there was a watermark.

// FollowConfig is how a follow orders its inputs (cordon.yaml `follow:`).
type FollowConfig struct {
	// Lateness is how far behind its own latest event time an input may
	// still write an event and have it taken in order, by format
	// (squid, envoy, falco...) or by source (ledger, proxy, sensor,
	// audit); a format's wins. Default 0: each input is in time order
	// (Squid writes at a transaction's end and stamps its end; an Envoy
	// access log stamps a request's start and writes at its end, so its
	// lines are out of order by the requests' durations).
	Lateness map[string]time.Duration `yaml:"lateness"`
	// Hold is the longest an event is held for order, in wall time, and
	// how long an input may be quiet and still be waited for (default
	// DefaultHold).
	Hold time.Duration `yaml:"hold"`
}

// DefaultHold bounds how long a follow holds an event for order: what it
// adds to the time from an appended line to its findings when inputs
// cross in time (a follow looks for lines every 50 ms while they come).
const DefaultHold = 500 * time.Millisecond

func (c FollowConfig) check() error {
	if c.Hold < 0 {
		return fmt.Errorf("follow: hold %s is negative", c.Hold)
	}
	sources := map[string]bool{evidence.SourceLedger: true, evidence.SourceProxy: true, evidence.SourceSensor: true, evidence.SourceAudit: true}
	for k, d := range c.Lateness {
		if _, err := ingest.ByFormat(k); err != nil && !sources[k] {
			return fmt.Errorf("follow: lateness of %q: neither a format (cordon formats) nor a source (ledger, proxy, sensor, audit)", k)
		}
		if d < 0 {
			return fmt.Errorf("follow: lateness of %s is %s, negative", k, d)
		}
	}
	return nil
}

func (c FollowConfig) hold() time.Duration {
	if c.Hold > 0 {
		return c.Hold
	}
	return DefaultHold
}

// lateness is an input's stated lateness, by its format, else its source.
func (c FollowConfig) lateness(format string) time.Duration {
	if d, ok := c.Lateness[format]; ok {
		return d
	}
	if p, err := ingest.ByFormat(format); err == nil {
		return c.Lateness[p.Source()]
	}
	return 0
}

// followMarks is what a follow knows of each input's progress.
type followMarks struct {
	cfg    FollowConfig
	inputs map[string]*inputMark // by path
	// heldSince is when the events the pass has not taken began to wait
	// (zero: none wait); heldLast is the latest of them, as far as known
	heldSince time.Time
	heldLast  time.Time
	// done says the follow ends: nothing is waited for
	done bool
}

// followMarks is the marks of the workspace's follow, made at its first
// round with the case's configuration.
func (w *Workspace) followMarks() *followMarks {
	if w.following == nil {
		var cfg FollowConfig
		if c, err := w.Config(); err == nil {
			cfg = c.Follow
		}
		w.following = newFollowMarks(cfg)
	}
	return w.following
}

type inputMark struct {
	latest time.Time // the latest event time it gave
	heard  time.Time // when it last gave an event (wall time)
	late   time.Duration
}

func newFollowMarks(cfg FollowConfig) *followMarks {
	return &followMarks{cfg: cfg, inputs: map[string]*inputMark{}}
}

// observe takes a round's results, read at now. An input was last heard
// from when its file was last written (now for stdin, or a file that
// cannot be looked at): a file nobody has written to for Hold is not
// waited for, however recently it was read, so a follow that begins on
// finished files holds nothing.
func (m *followMarks) observe(res []ingest.FileResult, now time.Time) {
	for _, r := range res {
		in := m.inputs[r.Path]
		if r.Events > 0 && !r.Last.IsZero() && in == nil {
			in = &inputMark{late: m.cfg.lateness(r.Format)}
			m.inputs[r.Path] = in
		}
		if in == nil {
			continue
		}
		if r.Last.After(in.latest) {
			in.latest = r.Last
		}
		heard := now
		if info, err := os.Stat(r.Path); err == nil && info.ModTime().Before(now) {
			heard = info.ModTime()
		}
		in.heard = heard
	}
}

// watermark is the time up to which the pass may take events at now;
// bounded is false when it may take every event (no input is waited for,
// or events have waited Hold). why says what bounds it, for the round's
// line.
//
// Past Hold nothing waits for an input's lateness any more, but the
// latest instant of an input still written waits all the same: its other
// lines may be in the next round. Waiting Hold does not mean the input is
// quiet: a follow that has fallen behind takes longer than Hold a round,
// and releasing everything then split the instant the round ended on and
// replayed the whole incident (once in a million-line follow).
func (m *followMarks) watermark(now time.Time) (at time.Time, bounded bool, why string) {
	if m.done {
		return time.Time{}, false, ""
	}
	hold := m.cfg.hold()
	waited := !m.heldSince.IsZero() && now.Sub(m.heldSince) >= hold
	for path, in := range m.inputs {
		if now.Sub(in.heard) >= hold {
			continue // quiet: not waited for
		}
		if waited {
			// the latest instant of the input furthest on
			if !bounded || in.latest.After(at) {
				at, bounded, why = in.latest, true, path
			}
			continue
		}
		mark := in.latest.Add(-in.late)
		if !bounded || mark.Before(at) {
			at, bounded, why = mark, true, path
		}
	}
	return at, bounded, why
}

// held records, after a round, whether events wait (n of them, from
// first to last in event time when known: zero times when not) at now.
// Held events that all came after the latest of those held before began
// to wait now: the ones before them were taken. So a follow that always
// holds its input's latest instant (the lines of a busy input) holds each
// instant until a later one comes, not everything once it has held for
// Hold.
func (m *followMarks) held(n int64, first, last time.Time, now time.Time) {
	switch {
	case n == 0:
		m.heldSince, m.heldLast = time.Time{}, time.Time{}
		return
	case m.heldSince.IsZero() || !first.IsZero() && !m.heldLast.IsZero() && first.After(m.heldLast):
		m.heldSince = now
	}
	// every event held is in first..last; zero when not known, and then
	// the next round cannot tell a new wait from this one
	m.heldLast = last
}
