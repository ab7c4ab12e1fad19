package watch

import (
	"fmt"
	"hash/fnv"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// Partition is a share of the agents: those whose name hashes (FNV-1a,
// 32 bits) to Index modulo Count. A watcher of a partition reads the
// whole stream through a consumer of its own and adds to its pass every
// session record (every partition attributes alike) and the events of
// its agents, as attribution decides them when the event is released: an
// event ambiguous between agents goes to partition 0 and to the partition
// of each of its candidates, one nobody's to partition 0. Every other
// event goes to the pass as a peer's (detect.Pass.AddPeer: only the
// correlators that judge an agent against the others read it), and the
// watcher publishes the findings of its own agents only. Count 0 or 1 is
// the whole.
type Partition struct {
	Index, Count int
}

// Whole reports whether p is every agent.
func (p Partition) Whole() bool { return p.Count <= 1 }

func (p Partition) check() error {
	if p.Whole() {
		return nil
	}
	if p.Index < 0 || p.Index >= p.Count {
		return fmt.Errorf("partition %d of %d: want 0 to %d", p.Index, p.Count, p.Count-1)
	}
	return nil
}

// name is what a partition's consumer and bucket add to the durable name.
func (p Partition) name() string {
	if p.Whole() {
		return ""
	}
	return fmt.Sprintf("-p%dof%d", p.Index, p.Count)
}

// Owns reports whether agent is in p ("" is partition 0's).
func (p Partition) Owns(agent string) bool {
	if p.Whole() {
		return true
	}
	if agent == "" {
		return p.Index == 0
	}
	h := fnv.New32a()
	h.Write([]byte(agent))
	return int(h.Sum32()%uint32(p.Count)) == p.Index
}

// takes reports whether ev is an event of p's agents, asked just before
// ev would be added to pass.
func (p Partition) takes(pass *detect.Pass, ev *evidence.Event) bool {
	if p.Whole() || attribution.SessionRecord(ev) {
		return true
	}
	a := pass.Attribution(ev)
	if a.Agent != "" || len(a.Candidates) == 0 {
		return p.Owns(a.Agent)
	}
	if p.Index == 0 {
		return true
	}
	for _, c := range a.Candidates {
		if p.Owns(c) {
			return true
		}
	}
	return false
}

// add gives ev to pass as p's or as a peer's; it reports which.
func (p Partition) add(pass *detect.Pass, ev *evidence.Event) (own bool, err error) {
	if p.takes(pass, ev) {
		return true, pass.Add(ev)
	}
	return false, pass.AddPeer(ev)
}

// mine are the findings of p's agents among fs.
func (p Partition) mine(fs []detect.Finding) []detect.Finding {
	if p.Whole() {
		return fs
	}
	out := fs[:0:0]
	for _, f := range fs {
		if p.Owns(f.Agent) {
			out = append(out, f)
		}
	}
	return out
}
