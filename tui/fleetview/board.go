package fleetview

import (
	"maps"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
)

// Changes a watcher announces (watch.Created and the rest): the board
// reads them as strings so that it does not depend on the watcher.
const (
	Created   = "created"
	Updated   = "updated"
	Withdrawn = "withdrawn"
)

// Board is the fleet's findings as the watchers last published them: one
// per id, a withdrawn one gone. One feed writes it and any number of
// consoles (one per SSH session) read it; each waits on Changed.
type Board struct {
	mu       sync.Mutex
	findings map[string]detect.Finding
	// holdings are what each agent holds, as its watcher last published
	// it (capability.Holding); none for an agent that acquired nothing.
	holdings map[string]capability.Holding
	// standings are each agent's at the kill its harness recorded, as
	// its watcher last published it; none before a kill.
	standings map[string]capability.Standing
	applied   int64
	last      time.Time // when the last change was applied
	status    string    // the feed's state in words ("" when live)
	hstatus   string    // the holdings feed's
	changed   chan struct{}
}

// NewBoard returns an empty board.
func NewBoard() *Board {
	return &Board{findings: map[string]detect.Finding{}, holdings: map[string]capability.Holding{}, standings: map[string]capability.Standing{},
		changed: make(chan struct{}), status: "connecting"}
}

// Apply records one published change of f. A change it does not know is
// ignored (it reports false): a later watcher may announce more.
func (b *Board) Apply(f detect.Finding, change string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch change {
	case Created, Updated:
		b.findings[f.ID] = f
	case Withdrawn:
		delete(b.findings, f.ID)
	default:
		return false
	}
	b.applied++
	b.last = time.Now()
	b.notify()
	return true
}

// ApplyHolding records what agent holds now and its standing (nil: no
// kill recorded); the zero Holding with no standing forgets it.
func (b *Board) ApplyHolding(agent string, h capability.Holding, st *capability.Standing) {
	b.mu.Lock()
	defer b.mu.Unlock()
	old, had := b.holdings[agent]
	gone := len(h.Acquired) == 0
	oldSt, hadSt := b.standings[agent]
	sameSt := hadSt == (st != nil) && (st == nil || oldSt.Equal(*st))
	if sameSt && (gone && !had || had && !gone && old.Equal(h)) {
		return // nothing new
	}
	if gone {
		delete(b.holdings, agent)
	} else {
		b.holdings[agent] = h
	}
	if st == nil {
		delete(b.standings, agent)
	} else {
		b.standings[agent] = *st
	}
	b.applied++
	b.last = time.Now()
	b.notify()
}

// SetHoldingsStatus says what the holdings' feed is doing, as SetStatus
// does for the findings'.
func (b *Board) SetHoldingsStatus(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s != b.hstatus {
		b.hstatus = s
		b.notify()
	}
}

// SetStatus says what the feed is doing ("reading 120 findings",
// "reconnecting: ..."); "" means live.
func (b *Board) SetStatus(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s != b.status {
		b.status = s
		b.notify()
	}
}

// notify wakes every waiter; b.mu is held.
func (b *Board) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// Changed is closed at the next change of the board.
func (b *Board) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// Snapshot is the board at one moment, ranked.
type Snapshot struct {
	// Ranks are the agents in the one ranking's order (detect.RankAgents
	// over the findings and the holdings the watchers published).
	Ranks []detect.AgentRank
	// Findings are every finding, by agent, most severe first
	// (detect.SortRanked).
	Findings map[string][]detect.Finding
	// Standings are the agents' at the kill their harness recorded.
	Standings map[string]capability.Standing
	Total     int
	Applied   int64
	Last      time.Time
	Status    string
}

// Snapshot ranks the board as it stands.
func (b *Board) Snapshot() Snapshot {
	b.mu.Lock()
	fs := make([]detect.Finding, 0, len(b.findings))
	for _, f := range b.findings {
		fs = append(fs, f)
	}
	s := Snapshot{Applied: b.applied, Last: b.last, Status: b.status, Total: len(fs)}
	if b.hstatus != "" {
		s.Status = strings.TrimPrefix(s.Status+"; holdings: "+b.hstatus, "; ")
	}
	held := maps.Clone(b.holdings)
	s.Standings = maps.Clone(b.standings)
	b.mu.Unlock()
	s.Ranks = detect.RankAgents(detect.RankInput{Findings: fs, Holdings: held, Standings: s.Standings})
	// ties (same agent, severity, start and detector) by id, so that
	// lines do not trade places between two snapshots
	sort.Slice(fs, func(i, j int) bool { return fs[i].ID < fs[j].ID })
	detect.SortRanked(fs, s.Ranks)
	s.Findings = map[string][]detect.Finding{}
	for _, f := range fs {
		s.Findings[f.Agent] = append(s.Findings[f.Agent], f)
	}
	return s
}
