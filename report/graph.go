package report

import (
	"context"
	"github.com/cordon-ir/cordon/capability"
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// Graph is the attribution and capability graph: agent → sessions →
// where each ran (sandbox, IP, container) → credentials, granted and
// acquired (an acquired edge names the owner) → hosts outside the
// sandboxes where a credential was used.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// Node is one box of the graph; Column orders them left to right.
type Node struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"` // agent, session, place, credential, host
	Label  string `json:"label"`
	Column int    `json:"column"`
}

// Edge joins two nodes; Acquired marks what the grant did not give.
type Edge struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Acquired bool   `json:"acquired,omitempty"`
	Label    string `json:"label,omitempty"`
}

// Graph columns.
const (
	colAgent = iota
	colSession
	colPlace
	colCredential
	colHost
)

// graph draws the involved agents' sessions and the subject's credentials.
func graph(r Report, cs incident.Case) Graph {
	return NewGraph(involved(r), r.Attribution.Sessions, cs.Capabilities)
}

// AgentGraph is one agent's graph, from the case's session records and
// its capability set: what the console's agent profile shows as a tree.
func AgentGraph(ctx context.Context, st Reader, agent string, caps []capability.Capability) (Graph, error) {
	a, err := attributionTable(ctx, st)
	if err != nil {
		return Graph{}, err
	}
	return NewGraph([]string{agent}, a.Sessions, caps), nil
}

// NewGraph draws the sessions of agents (where each ran, what it was
// granted) and the credentials among caps (acquired ones from their
// owner, and the hosts outside the sandboxes they were used from).
func NewGraph(agents []string, sessions []SessionRow, caps []capability.Capability) Graph {
	g := Graph{Nodes: []Node{}, Edges: []Edge{}}
	seen := map[string]bool{}
	node := func(kind, value, label string, col int) string {
		id := kind + ":" + value
		if !seen[id] {
			seen[id] = true
			g.Nodes = append(g.Nodes, Node{ID: id, Kind: kind, Label: label, Column: col})
		}
		return id
	}
	edge := func(e Edge) {
		for _, x := range g.Edges {
			if x.From == e.From && x.To == e.To {
				return
			}
		}
		g.Edges = append(g.Edges, e)
	}
	inside := map[string]bool{} // the sandboxes' IPs and containers
	placeOf := map[string]string{}
	for _, s := range sessions {
		if !slices.Contains(agents, s.Agent) {
			continue
		}
		a := node("agent", s.Agent, s.Agent, colAgent)
		sn := node("session", s.Agent+"/"+s.Session, "session "+s.Session, colSession)
		edge(Edge{From: a, To: sn})
		var where []string
		for _, v := range []string{s.Sandbox, s.IP, shortID(s.Container)} {
			if v != "" {
				where = append(where, v)
			}
		}
		inside[s.IP], inside[s.Container], inside[s.Sandbox] = true, true, true
		if len(where) == 0 {
			where = []string{"no sandbox recorded"}
		}
		p := node("place", strings.Join(where, "|"), strings.Join(where, " · "), colPlace)
		edge(Edge{From: sn, To: p})
		for _, c := range s.Credentials {
			cn := node("credential", c, c, colCredential)
			placeOf[c] = p
			edge(Edge{From: p, To: cn, Label: "granted"})
		}
	}
	for _, c := range caps {
		if c.Kind != capability.Credential {
			continue
		}
		cn := node("credential", c.Value, c.Value, colCredential)
		if c.Origin == capability.Acquired {
			from := node("agent", c.Agent, c.Agent, colAgent)
			for _, s := range sessions {
				if s.Agent == c.Agent {
					if p, ok := placeOf[firstOr(s.Credentials)]; ok {
						from = p
					}
					break
				}
			}
			label := "acquired"
			if c.Owner != "" && c.Owner != c.Agent {
				label += " from " + c.Owner
			}
			edge(Edge{From: from, To: cn, Acquired: true, Label: label})
		}
		for _, u := range c.Uses {
			// a use through its own tool calls is not a place
			if u.From == "" || inside[u.From] || u.Refused || u.Source == evidence.SourceLedger {
				continue
			}
			h := node("host", u.From, u.From, colHost)
			edge(Edge{From: cn, To: h, Acquired: c.Origin == capability.Acquired, Label: "used from"})
		}
	}
	return g
}

func firstOr(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
}

// shortID shortens a container id the way people read one.
func shortID(s string) string {
	if len(s) > 12 && !strings.ContainsAny(s, "-_.") {
		return s[:12]
	}
	return s
}

// Tree writes the graph as an indented text tree, one agent at the root of
// each, for a terminal: the same graph the picture draws. Acquired edges
// say so and name the owner. Labels are evidence: the caller makes them
// safe for its medium.
func (g Graph) Tree() string {
	out := map[string][]Edge{}
	label := map[string]string{}
	for _, n := range g.Nodes {
		label[n.ID] = n.Label
	}
	for _, e := range g.Edges {
		out[e.From] = append(out[e.From], e)
	}
	var b strings.Builder
	var walk func(id, indent string, seen map[string]bool)
	walk = func(id, indent string, seen map[string]bool) {
		es := out[id]
		for i, e := range es {
			branch, next := "├─ ", "│  "
			if i == len(es)-1 {
				branch, next = "└─ ", "   "
			}
			b.WriteString(indent + branch + label[e.To])
			if e.Acquired || (e.Label != "" && e.Label != "granted") {
				b.WriteString(" [" + e.Label + "]")
			}
			b.WriteString("\n")
			if !seen[e.To] {
				seen[e.To] = true
				walk(e.To, indent+next, seen)
			}
		}
	}
	for _, n := range g.Nodes {
		if n.Kind != "agent" {
			continue
		}
		b.WriteString(n.Label + "\n")
		walk(n.ID, "", map[string]bool{n.ID: true})
	}
	return b.String()
}
