package detail

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// role says how a line is drawn and whether it can be opened.
type role int

const (
	plain role = iota
	section
	field
	link
	note
	group // a related group's header: enter shows the group in the timeline
)

// line is one line of the document: safe text, already cut to the width.
type line struct {
	role  role
	label string // field name, for field lines
	text  string
	ev    evidence.Event // for links
	rel   int            // for group headers: index into the related groups
}

// groupHint follows a group's header under the cursor.
const groupHint = "  · enter: all in the timeline"

// maxRawLines bounds the pretty-printed raw record; the CLI shows all.
const maxRawLines = 4000

// wrapLines is how many lines a long field value may take.
const wrapLines = 4

// labelWidth is the width of the field-name column.
const labelWidth = 17 // the longest field name (egress_allowlist) and a space

// build lays out the document for an event at width w.
// attr is the attribution path ("" when none applies).
func build(ev evidence.Event, attr string, notes []string, rel []attribution.Related, relState string, clock common.Clock, w int) []line {
	var out []line
	add := func(r role, text string) { out = append(out, line{role: r, text: text}) }
	head := ev.Kind
	if ev.Agent != "" {
		head += " by " + ev.Agent
	}
	add(section, common.Fit("EVENT  "+head+"  "+ev.Time.UTC().Format(time.RFC3339Nano), w))
	out = append(out, fields(ev, clock, w)...)
	if len(notes) > 0 {
		add(plain, "")
		add(section, fmt.Sprintf("NOTES (%d, from the journal)", len(notes)))
		for _, n := range notes {
			for _, part := range wrap(n, w-2, wrapLines) {
				add(plain, "  "+part)
			}
		}
	}
	if attr != "" {
		add(plain, "")
		add(section, "ATTRIBUTION")
		for _, part := range wrap(attr, w-2, 2) {
			add(plain, "  "+part)
		}
	}
	add(plain, "")
	add(section, "ORIGIN")
	add(plain, "  "+common.Fit(ev.Origin, w-2))
	add(plain, "")
	add(section, "RELATED")
	if relState != "" {
		add(note, "  "+common.Fit(relState, w-2))
	}
	for i, g := range rel {
		head := fmt.Sprintf("%s  (%d)", g.Why, g.Total)
		if uint64(len(g.Events)) < g.Total {
			head = fmt.Sprintf("%s  (%d of %d)", g.Why, len(g.Events), g.Total)
		}
		out = append(out, line{role: group, text: "  " + common.Fit(head, w-2), rel: i})
		for _, e := range g.Events {
			out = append(out, line{role: link, text: relatedRow(e, clock, w-4), ev: e})
		}
	}
	add(plain, "")
	add(section, "RAW RECORD")
	out = append(out, raw(ev.Raw, w)...)
	return out
}

// fields lists every non-empty field in the model's order.
func fields(ev evidence.Event, clock common.Clock, w int) []line {
	var out []line
	v := reflect.ValueOf(ev)
	t := v.Type()
	vw := max(w-labelWidth-2, 8)
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "raw" || name == "origin" {
			continue
		}
		f := v.Field(i)
		if f.IsZero() {
			continue
		}
		var val string
		switch x := f.Interface().(type) {
		case time.Time:
			val = x.UTC().Format(time.RFC3339Nano)
			if clock.Relative {
				val += "  (" + common.Clock{Relative: true, Origin: clock.Origin, Days: clock.Days, Anchor: clock.Anchor}.Format(x) + ")"
			}
		case []string:
			val = strings.Join(x, ", ")
		default:
			val = fmt.Sprint(x)
		}
		if name == "decision" {
			val = strings.ToUpper(val)
		}
		for j, part := range wrap(val, vw, wrapLines) {
			label := ""
			if j == 0 {
				label = name
			}
			out = append(out, line{role: field, label: label, text: part})
		}
	}
	return out
}

// wrap makes s safe and breaks it into at most n lines of w cells, the
// last one cut with "…" when s is longer.
func wrap(s string, w, n int) []string {
	if limit := 8*w*n + 16; len(s) > limit {
		s = s[:limit]
	}
	s = evidence.Printable(s)
	parts := strings.Split(ansi.Wrap(s, w, ""), "\n")
	if len(parts) > n {
		parts = parts[:n]
		parts[n-1] = ansi.Truncate(parts[n-1], w-1, "") + "…"
	}
	return parts
}

// relatedRow is a compact timeline row for a linked event.
func relatedRow(e evidence.Event, clock common.Clock, w int) string {
	verdict := ""
	switch e.Decision {
	case evidence.DecisionDeny:
		verdict = "DENY "
	case evidence.DecisionError:
		verdict = "ERR "
	}
	kindW := 13
	if w >= 100 { // wide enough for "policy_decision" whole
		kindW = 15
	}
	s := clock.Format(e.Time) + " " + common.Pad(e.Agent, 9) + " " + common.Pad(e.Kind, kindW) + " " + verdict
	return s + common.Fit(e.Message, max(w-ansi.StringWidth(s), 4))
}

// raw pretty-prints a JSON record, or shows text lines as they are.
func raw(r string, w int) []line {
	if r == "" {
		return []line{{role: note, text: "  (no raw record kept)"}}
	}
	text := r
	var pretty bytes.Buffer
	// indenting runs in Update: a record past 256 KB is shown as it is
	if len(r) < 256<<10 && json.Indent(&pretty, []byte(r), "", "  ") == nil {
		text = pretty.String()
	}
	var out []line
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if i == maxRawLines {
			out = append(out, line{role: note, text: "  … the rest is in: cordon show --incident DIR ID"})
			break
		}
		// a long line wraps rather than being cut: the raw record is the
		// evidence, and its end is often the part that matters
		for j, part := range wrapRaw(l, w-2) {
			if j > 0 && len(out) >= maxRawLines {
				break
			}
			out = append(out, line{role: plain, text: "  " + part})
		}
	}
	return out
}

// wrapRaw makes one line of a raw record safe and wraps it at w cells,
// breaking inside long words too (a URL, a base64 blob); a continuation is
// marked with "↪" so that it is not read as a line of its own.
func wrapRaw(l string, w int) []string {
	s := evidence.Printable(l)
	if ansi.StringWidth(s) <= w || w < 8 {
		return []string{common.Cut(s, max(w, 1))}
	}
	indent := len(s) - len(strings.TrimLeft(s, " "))
	indent = min(indent, w/2)
	first, _, _ := strings.Cut(ansi.Wrap(s, w, ""), "\n")
	out := []string{first}
	rest := strings.TrimLeft(strings.TrimPrefix(s, first), " ")
	cont := strings.Repeat(" ", indent) + "↪ "
	for _, p := range strings.Split(ansi.Wrap(rest, w-ansi.StringWidth(cont), ""), "\n") {
		out = append(out, cont+p)
	}
	return out
}

// View renders the visible part of the document with the cursor line.
func (m Model) View() string {
	st := m.com.Styles
	h, w := m.com.Height, m.com.Width
	if h <= 0 || w <= 0 {
		return ""
	}
	out := make([]string, 0, h)
	if !m.has {
		out = append(out, st.Dim.Render(common.Fit("  no event open: select one in the timeline and press enter", w)))
	}
	end := min(m.top+h, len(m.lines))
	for i := m.top; i < end; i++ {
		out = append(out, m.render(m.lines[i], i == m.cur, w))
	}
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

func (m Model) render(l line, selected bool, w int) string {
	st := m.com.Styles
	switch l.role {
	case section:
		mark := ""
		if m.marks[m.ev.ID] && strings.HasPrefix(l.text, "EVENT") {
			mark = "  * marked"
		}
		s := common.PadRight(cursorGlyph(selected)+l.text+mark, w)
		return st.Section.Render(s)
	case field:
		s := cursorGlyph(selected) + " " + common.PadRight(l.label, labelWidth) + l.text
		if selected {
			return st.RowSelected.Render(common.PadRight(s, w))
		}
		return cursorGlyph(false) + " " + st.Label.Render(common.PadRight(l.label, labelWidth)) + common.Highlight(l.text, m.hl, st.Value, st.Match)
	case link:
		glyph := "  "
		if m.marks[l.ev.ID] {
			glyph = " *"
		}
		s := cursorGlyph(selected) + glyph + " " + l.text
		if selected {
			return st.LinkSelected.Render(common.PadRight(s, w))
		}
		return st.Link.Render(s)
	case note:
		return st.Dim.Render(cursorGlyph(selected) + l.text)
	case group:
		if selected {
			return st.LinkSelected.Render(common.PadRight(cursorGlyph(true)+l.text+groupHint, w))
		}
		return st.Label.Render(cursorGlyph(false) + l.text)
	}
	if selected {
		return st.RowSelected.Render(common.PadRight(cursorGlyph(true)+l.text, w))
	}
	if len(m.hl) > 0 {
		return cursorGlyph(false) + common.Highlight(l.text, m.hl, st.Value, st.Match)
	}
	return cursorGlyph(false) + l.text
}

func cursorGlyph(selected bool) string {
	if selected {
		return "▸"
	}
	return " "
}
