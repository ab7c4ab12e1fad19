package detect

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// The window's last refusal of a host, of a host an address served, and
// of another call naming a path a call names, looked up, are what walking
// the window newest first finds, on random refusals, expiries and address
// ties (hosts repeated, an address
// that is a host's name, hosts with no refusal, ties past maxTies).
func TestAdaptationLookupIsTheWalk(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 9))
	hosts := []string{"", "a.example", "b.example", "c.example", "d.example", "10.0.0.1", "e.example"}
	paths := []string{"", "/etc/a", "/etc/b", "/run/secrets/c"}
	ips := []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "::ffff:10.0.0.2", "not-an-ip"}
	for round := range 200 {
		st := newAdaptState()
		a := &adaptation{}
		var book addrBook
		at := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
		window := time.Duration(1+rnd.IntN(20)) * time.Second
		for i := range 300 {
			at = at.Add(time.Duration(rnd.IntN(1500)) * time.Millisecond)
			if rnd.IntN(3) == 0 {
				book.observe(&evidence.Event{ID: fmt.Sprint("t", i), Time: at, Kind: evidence.KindNetConnect, Source: evidence.SourceSensor,
					DstIP: ips[rnd.IntN(3)], DstHost: hosts[1+rnd.IntN(len(hosts)-1)]})
			}
			st.expire(at.Add(-window))
			if rnd.IntN(2) == 0 {
				a.deny(st, &denial{t: at, ids: []string{fmt.Sprint("d", i)}, host: hosts[rnd.IntN(len(hosts))],
					path: paths[rnd.IntN(len(paths))], callID: fmt.Sprint("c-", rnd.IntN(8))})
			}
			for _, h := range hosts {
				if got, want := st.lastDenialOf(h), walkOf(st, h); got != want {
					t.Fatalf("round %d, event %d: last refusal of %q: got %v, want %v", round, i, h, got, want)
				}
			}
			c := &call{callID: fmt.Sprint("c-", rnd.IntN(8))}
			for range rnd.IntN(3) {
				c.paths = append(c.paths, paths[rnd.IntN(len(paths))])
			}
			if got, want := st.lastDenialOfPaths(c), walkPaths(st, c); got != want {
				t.Fatalf("round %d, event %d: last refusal of a path of %+v: got %v, want %v", round, i, c, got, want)
			}
			for _, ip := range ips {
				got, gotTie := st.lastDenialServedBy(&book, ip)
				want, wantTie := walkServedBy(st, &book, ip)
				if got != want || gotTie != wantTie {
					t.Fatalf("round %d, event %d: last refusal served by %s: got %v %q, want %v %q", round, i, ip, got, gotTie, want, wantTie)
				}
			}
		}
	}
}

func walkOf(st *adaptState, host string) *denial {
	for i := len(st.denials) - 1; i >= 0; i-- {
		if st.denials[i].host == host {
			return st.denials[i]
		}
	}
	return nil
}

func walkPaths(st *adaptState, c *call) *denial {
	for i := len(st.denials) - 1; i >= 0; i-- {
		d := st.denials[i]
		if d.path == "" || !contains(c.paths, d.path) || d.callID == c.callID {
			continue
		}
		return d
	}
	return nil
}

func walkServedBy(st *adaptState, book *addrBook, ip string) (*denial, string) {
	for i := len(st.denials) - 1; i >= 0; i-- {
		d := st.denials[i]
		if d.host == "" || d.host == ip {
			continue
		}
		if t := book.tieOf(ip, d.host); t != nil {
			return d, t.says(ip)
		}
	}
	return nil, ""
}

// The latest refused call a call shares a path or host with, or retries,
// looked up per target, is what walking the window's refused calls newest
// first finds: on random calls refused in and out of their time order,
// refused again, with paths named twice, retries and windows expiring.
func TestEscalationLookupIsTheWalk(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 5))
	paths := []string{"/etc/a", "/etc/b", "/run/secrets/c", "/tmp/d"}
	hosts := []string{"a.example", "b.example", "10.0.0.9"}
	pick := func(from []string) []string {
		var out []string
		for range rnd.IntN(3) {
			out = append(out, from[rnd.IntN(len(from))]) // twice, sometimes
		}
		return out
	}
	for round := range 200 {
		st := newEscState()
		at := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
		window := time.Duration(1+rnd.IntN(30)) * time.Second
		var calls []*call
		for i := range 400 {
			at = at.Add(time.Duration(rnd.IntN(1000)) * time.Millisecond)
			st.expire(at.Add(-window))
			c := &call{t: at.Add(-time.Duration(rnd.IntN(3000)) * time.Millisecond), id: fmt.Sprint("e", i), callID: fmt.Sprint("c-", rnd.IntN(60)),
				paths: pick(paths), hosts: pick(hosts)}
			if rnd.IntN(4) == 0 {
				c.retryOf = fmt.Sprint("c-", rnd.IntN(60))
			}
			if got, want := st.lastRefusedLike(c), walkRefused(st, c); got != want {
				t.Fatalf("round %d, call %d: got %+v, want %+v", round, i, got, want)
			}
			calls = append(calls, c)
			if rnd.IntN(2) == 0 {
				st.refuse(calls[max(0, len(calls)-1-rnd.IntN(10))]) // a call of late, maybe refused before
			}
			seen := map[*call]bool{}
			for _, r := range st.refused {
				if seen[r.c] {
					t.Fatalf("round %d: call %s twice in the window", round, r.c.id)
				}
				seen[r.c] = true
			}
		}
		held := 0
		for _, list := range st.byKey {
			held += len(list)
		}
		if want := len(st.refused) * 8; held > want {
			t.Fatalf("round %d: %d entries kept for %d refused calls", round, held, len(st.refused))
		}
	}
}

func walkRefused(st *escState, c *call) *call {
	for i := len(st.refused) - 1; i >= 0; i-- {
		r := st.refused[i].c
		if r.callID == c.callID {
			continue
		}
		if sharedTarget(r, c) != "" || c.retryOf == r.callID {
			return r
		}
	}
	return nil
}
