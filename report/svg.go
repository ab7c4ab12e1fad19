package report

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// Picture is one of the report's pictures: a self-contained SVG (no
// script, no fetched asset, no font that is not the reader's) that
// scales to the width it is given.
type Picture struct {
	// Name is its file name beside a Markdown report.
	Name  string
	Title string
	SVG   string
}

// Pictures draws the report's pictures, the same bytes for the same
// report: the kill switch, the attribution and capability graph, the
// timeline.
func (r Report) Pictures() []Picture {
	return []Picture{
		{Name: "killswitch.svg", Title: "Kill switch: the seven layers as of the report", SVG: killSwitchSVG(r.Layers, r.Generated)},
		{Name: "graph.svg", Title: "Attribution and capabilities: agent, sessions, sandboxes, credentials, hosts", SVG: graphSVG(r.Graph)},
		{Name: "timeline.svg", Title: "Timeline: one lane per agent", SVG: timelineSVG(r.Lanes)},
	}
}

// svgText makes evidence text safe inside an SVG element or attribute:
// printable (evidence.Printable), cut to n runes, XML-escaped. Evidence is
// hostile: nothing from it is ever markup.
func svgText(s string, n int) string {
	s = evidence.Printable(s)
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// svgDoc opens an SVG of the given size with its title (read by screen
// readers) and the one stylesheet the pictures share.
func svgDoc(b *strings.Builder, w, h int, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="%s" style="max-width:%dpx;height:auto" font-family="sans-serif" font-size="12">`, w, h, svgText(title, 200), w)
	fmt.Fprintf(b, "<title>%s</title>", svgText(title, 200))
	b.WriteString(`<rect width="100%" height="100%" fill="#fff"/>`)
}

// statusColor is a layer status's fill; the status is written beside it
// too, never shown by colour alone.
func statusColor(s incident.CheckStatus) string {
	switch s {
	case incident.CheckVerified:
		return "#2e7d32"
	case incident.CheckNotVerified:
		return "#c62828"
	case incident.CheckNoEvidence:
		return "#ef6c00"
	}
	return "#757575"
}

func statusMark(s incident.CheckStatus) string {
	if s == incident.CheckVerified {
		return "✓"
	}
	return "✗"
}

// killSwitchSVG draws the layers as a column of switches, each with its
// state and its one-line result.
func killSwitchSVG(layers []LayerStatus, at time.Time) string {
	const w, row = 900, 34
	h := 40 + row*max(len(layers), 1)
	var b strings.Builder
	svgDoc(&b, w, h, "Kill switch as of "+reportTime(at))
	fmt.Fprintf(&b, `<text x="10" y="22" font-weight="bold">Kill switch as of %s</text>`, svgText(reportTime(at), 40))
	if len(layers) == 0 {
		b.WriteString(`<text x="10" y="56">The playbook has no kill-switch layers.</text>`)
	}
	for i, l := range layers {
		y := 36 + i*row
		c := statusColor(l.Status)
		fmt.Fprintf(&b, `<rect x="10" y="%d" width="28" height="24" rx="4" fill="%s"/>`, y, c)
		fmt.Fprintf(&b, `<text x="24" y="%d" text-anchor="middle" fill="#fff" font-weight="bold">%s</text>`, y+17, statusMark(l.Status))
		fmt.Fprintf(&b, `<text x="48" y="%d" font-weight="bold">%s</text>`, y+17, svgText(l.Title, 28))
		fmt.Fprintf(&b, `<text x="250" y="%d" fill="%s">%s</text>`, y+17, c, svgText(string(l.Status), 16))
		fmt.Fprintf(&b, `<text x="360" y="%d" fill="#333">%s</text>`, y+17, svgText(l.Summary, 78))
	}
	b.WriteString("</svg>")
	return b.String()
}

// graphSVG draws the graph in columns, left to right.
func graphSVG(g Graph) string {
	const w, colW, boxW, boxH, row, top = 960, 192, 176, 26, 36, 44
	const maxRows = 14
	heads := []string{"agent", "session", "sandbox · IP · container", "credential", "host outside the sandboxes"}
	pos := map[string][2]int{}
	rows := make([]int, len(heads))
	more := make([]int, len(heads))
	for _, n := range g.Nodes {
		c := n.Column
		if rows[c] >= maxRows {
			more[c]++
			continue
		}
		pos[n.ID] = [2]int{8 + c*colW, top + rows[c]*row}
		rows[c]++
	}
	// what each acquired edge says is listed under the boxes, one line
	// each: placed on the edge, between columns 16 px apart, it covered
	// the boxes and the other labels
	var notes []string
	for _, e := range g.Edges {
		_, ok1 := pos[e.From]
		_, ok2 := pos[e.To]
		if ok1 && ok2 && e.Acquired && e.Label != "" {
			notes = append(notes, nodeLabel(g, e.To)+": "+e.Label)
		}
	}
	moreY := top + maxRows*row + 16
	notesY := top + row*max(slicesMax(rows), 1) + 20
	if slices.ContainsFunc(more, func(n int) bool { return n > 0 }) {
		notesY = moreY + 20
	}
	h := notesY + 16*len(notes) + 24
	var b strings.Builder
	svgDoc(&b, w, h, "Attribution and capability graph")
	for i, hd := range heads {
		fmt.Fprintf(&b, `<text x="%d" y="24" font-weight="bold" fill="#444">%s</text>`, 8+i*colW, svgText(hd, 30))
	}
	if len(g.Nodes) == 0 {
		fmt.Fprintf(&b, `<text x="8" y="%d">No session is recorded for the agents involved.</text>`, top+16)
	}
	for _, e := range g.Edges {
		f, ok1 := pos[e.From]
		t, ok2 := pos[e.To]
		if !ok1 || !ok2 {
			continue
		}
		x1, y1, x2, y2 := f[0]+boxW, f[1]+boxH/2, t[0], t[1]+boxH/2
		style := `stroke="#555"`
		if e.Acquired {
			style = `stroke="#c62828" stroke-width="2" stroke-dasharray="6 4"`
		}
		if x2 <= x1 { // an edge within a column or backwards: curve around
			x2 = t[0] + boxW/2
			y2 = t[1]
		}
		// the arrowhead is drawn, not a marker: a marker is referenced by
		// url(#id), and ids of several inline pictures could collide
		fmt.Fprintf(&b, `<path d="M%d,%d C%d,%d %d,%d %d,%d" fill="none" %s/>`, x1, y1, x1+40, y1, x2-40, y2, x2, y2, style)
		fmt.Fprintf(&b, `<path d="M%d,%d l-7,-4 l0,8z" fill="#555"/>`, x2, y2)
	}
	for _, n := range g.Nodes {
		p, ok := pos[n.ID]
		if !ok {
			continue
		}
		fill, stroke := "#f5f5f5", "#888"
		switch n.Kind {
		case "agent":
			fill, stroke = "#e3f2fd", "#1565c0"
		case "host":
			fill, stroke = "#ffebee", "#c62828"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="4" fill="%s" stroke="%s"/>`, p[0], p[1], boxW, boxH, fill, stroke)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, p[0]+6, p[1]+17, svgText(n.Label, 22))
	}
	for c, n := range more {
		if n > 0 {
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="#666">+%d more (in the tables)</text>`, 8+c*colW, moreY, n)
		}
	}
	for i, n := range notes {
		fmt.Fprintf(&b, `<text x="8" y="%d" font-size="11" fill="#c62828">%s</text>`, notesY+16*i, svgText(n, 150))
	}
	fmt.Fprintf(&b, `<text x="8" y="%d" font-size="11" fill="#444">solid: granted by a session · </text><text x="230" y="%d" font-size="11" fill="#c62828">dashed red: acquired, the owner named</text>`, h-8, h-8)
	b.WriteString("</svg>")
	return b.String()
}

// nodeLabel is a node's label by its id.
func nodeLabel(g Graph, id string) string {
	for _, n := range g.Nodes {
		if n.ID == id {
			return n.Label
		}
	}
	return id
}

func slicesMax(l []int) int {
	m := 0
	for _, v := range l {
		m = max(m, v)
	}
	return m
}
