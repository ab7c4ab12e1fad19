package detect

import (
	"sort"
	"strconv"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// credMisuse is credential_misuse: a credential issued to one agent (its
// session_start) appearing in another agent's doing. It is Go because it
// compares two identities of one event, the owner of the credential it
// carries and the agent its physical keys point at, which no query can.
//
//   - a proxy or sensor event carrying the credential (proxy user,
//     credential field) from another agent's sandbox (attributed by
//     container, pod or IP) is that agent's misuse;
//   - a tool call of another agent that names the credential (command
//     line, arguments) is that agent's misuse, and makes it the suspect
//     for later uses from outside every sandbox;
//   - a use from no sandbox at all (attributed by the credential alone) is
//     charged to the last other agent that named the credential or read a
//     file holding it; failing that, to the owner when it read its own
//     credential from a file before (the credential left its sandbox with
//     it), else to no agent. A borrowed credential is never charged to its
//     owner, the victim. A use from the lab's own egress address (a cloud
//     audit log sees the proxy's or the NAT's address) is no sandbox's
//     only when another agent held the credential.
//
// It judges an agent by the others' events (a use of one agent's
// credential is another's misuse), so a pass of a share of the agents
// gives it every agent's (peerJudge).
type credMisuse struct {
	r        *Rule
	e        *env
	mentions map[string]string   // credential -> the last agent that named it
	selfRead map[string]bool     // credentials their owner read from a file
	uses     map[string]*credUse // agent + credential
}

type credUse struct {
	agent, cred, owner string
	hits               []hit
	sources            []string
}

func (*credMisuse) judgesPeers() {}

func newCredMisuse(r *Rule, e *env) *credMisuse {
	return &credMisuse{r: r, e: e, mentions: map[string]string{}, selfRead: map[string]bool{}, uses: map[string]*credUse{}}
}

func (c *credMisuse) add(_ int, ev *evidence.Event) {
	h := hit{t: ev.Time, id: ev.ID, agent: ev.Agent}
	read := c.e.readCreds(ev)
	for _, cred := range sortedKeys(read) {
		if owner := read[cred]; owner.agent != ev.Agent {
			c.mentions[cred] = ev.Agent
		} else {
			c.selfRead[cred] = true
		}
	}
	if ev.Source == evidence.SourceLedger {
		if ev.Kind != evidence.KindToolCall || ev.Agent == "" {
			return
		}
		text := ev.Cmdline + " " + ev.Message
		for _, cred := range c.e.namedIn(text) {
			if owner := c.e.credOwner(cred, ev.Time); owner != nil && owner.agent != ev.Agent {
				c.mentions[cred] = ev.Agent
				c.use(ev.Agent, cred, owner.agent, h, "its tool calls")
			}
		}
		return
	}
	held := ev.Credential
	if ev.User != "" {
		held = append(held[:len(held):len(held)], ev.User)
	}
	for _, cred := range held {
		owner := c.e.credOwner(cred, ev.Time)
		if owner == nil {
			continue
		}
		switch ev.AttributedVia {
		case attribution.ViaContainer, attribution.ViaPod, attribution.ViaIP:
			if ev.Agent != "" && ev.Agent != owner.agent {
				c.use(ev.Agent, cred, owner.agent, h, where(ev)+" (its sandbox)")
			}
		default:
			suspect, how := "", where(ev)+" (no sandbox)"
			if m, ok := c.mentions[cred]; ok {
				suspect = m
			} else if c.e.throughEgress(ev.SrcIP) {
				continue // its owner's, through the lab's egress
			} else if c.selfRead[cred] {
				suspect, how = owner.agent, where(ev)+" (no sandbox; its owner read it from a file)"
			}
			c.use(suspect, cred, owner.agent, h, how)
		}
	}
}

func where(ev *evidence.Event) string {
	switch {
	case ev.SrcIP != "":
		return ev.SrcIP
	case ev.Container != "":
		return "container " + ev.Container
	}
	return "an unknown source"
}

func (c *credMisuse) use(agent, cred, owner string, h hit, source string) {
	k := agent + "\x00" + cred
	u := c.uses[k]
	if u == nil {
		u = &credUse{agent: agent, cred: cred, owner: owner}
		c.uses[k] = u
	}
	u.hits = append(u.hits, h)
	u.sources = appendNew(u.sources, source)
}

func (c *credMisuse) done() []Finding {
	var out []Finding
	for _, k := range sortedKeys(c.uses) {
		u := c.uses[k]
		sort.SliceStable(u.hits, func(i, j int) bool { return u.hits[i].t.Before(u.hits[j].t) })
		for _, hits := range runs(c.r, u.hits, func(x hit) time.Time { return x.t }) {
			f := withValues(c.r.newFinding(u.agent, hits, map[string]string{
				"credential": u.cred, "owner": u.owner, "sources": listValues(u.sources, 4),
				"detail": strconv.Itoa(len(hits)) + " events with " + u.cred + " of " + u.owner,
			}), []string{u.cred})
			if u.agent == u.owner {
				// its own key, taken outside: not another agent's
				f.Title = "Its own credential in use outside every sandbox"
			}
			out = append(out, f)
		}
	}
	return out
}
