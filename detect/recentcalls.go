package detect

import "time"

// recentCalls are an agent's tool calls of the last window, by call id:
// where a refusal or a retry that names a call id finds the call. A call
// older than the window is forgotten (expire), so what a correlator keeps
// of an agent's calls is bounded by its window, not by the incident:
// a refusal recorded more than a window after the call it refuses, or a
// retry of such a call, is then not tied to the call (the gateway writes
// its refusal as it refuses, at the call; TestRefusalAfterTheWindow).
type recentCalls struct {
	byID  map[string]*call
	order []*call // the calls with a call id, oldest first
}

func newRecentCalls() recentCalls { return recentCalls{byID: map[string]*call{}} }

// add keeps c, if it has a call id; a later call with the same id takes
// its place.
func (r *recentCalls) add(c *call) {
	if c.callID == "" {
		return
	}
	r.byID[c.callID] = c
	r.order = append(r.order, c)
}

// get is the call of the window with the call id, or nil.
func (r *recentCalls) get(id string) *call {
	if id == "" {
		return nil
	}
	return r.byID[id]
}

// expire forgets the calls before from. Calls come in time order, so
// they are at the front.
func (r *recentCalls) expire(from time.Time) {
	k := 0
	for k < len(r.order) && r.order[k].t.Before(from) {
		if c := r.order[k]; r.byID[c.callID] == c {
			delete(r.byID, c.callID)
		}
		r.order[k] = nil
		k++
	}
	if k == 0 {
		return
	}
	r.order = r.order[k:]
	if len(r.order) == 0 {
		r.order = nil // the next append starts a small array again
	}
}
