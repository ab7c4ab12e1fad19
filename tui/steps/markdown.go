package steps

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// The Markdown a playbook's guidance uses, and no more: headings,
// paragraphs, bullet and numbered lists (with continuation lines), fenced
// code, and inline code spans, **strong**, *emphasis* and [links](url).
// Everything else shows as text. The source is made Printable first: a
// guidance filled with case variables quotes the evidence.

// span is a run of inline text with one style.
type span struct {
	text  string
	style int
}

const (
	plain = iota
	code
	strong
)

// block is a paragraph, heading, list item or code line before wrapping.
type block struct {
	kind   int // paragraph, heading, item, fence, blank
	marker string
	text   string
}

const (
	bPara = iota
	bHeading
	bItem
	bFence
	bBlank
)

// parseBlocks splits Markdown into blocks, joining continuation lines.
func parseBlocks(src string) []block {
	var out []block
	fenced := false
	for _, raw := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		line := strings.TrimRight(raw, " \t")
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			out = append(out, block{kind: bFence, text: line})
			continue
		}
		if trim == "" {
			if len(out) > 0 && out[len(out)-1].kind != bBlank {
				out = append(out, block{kind: bBlank})
			}
			continue
		}
		if strings.HasPrefix(trim, "#") {
			out = append(out, block{kind: bHeading, text: strings.TrimSpace(strings.TrimLeft(trim, "#"))})
			continue
		}
		if marker, rest, ok := listItem(trim); ok {
			out = append(out, block{kind: bItem, marker: marker, text: rest})
			continue
		}
		if n := len(out); n > 0 && (out[n-1].kind == bPara || out[n-1].kind == bItem) {
			out[n-1].text += " " + trim
			continue
		}
		out = append(out, block{kind: bPara, text: trim})
	}
	for len(out) > 0 && out[len(out)-1].kind == bBlank {
		out = out[:len(out)-1]
	}
	return out
}

// listItem recognizes "- x", "* x", "+ x" and "12. x".
func listItem(s string) (marker, rest string, ok bool) {
	if len(s) > 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ' {
		return "•", strings.TrimSpace(s[2:]), true
	}
	i := 0
	for i < len(s) && i < 3 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && s[i] == '.' && s[i+1] == ' ' {
		return s[:i+1], strings.TrimSpace(s[i+2:]), true
	}
	return "", "", false
}

// inline splits text into styled spans.
func inline(s string) []span {
	var out []span
	var cur strings.Builder
	flush := func(style int) {
		if cur.Len() > 0 {
			out = append(out, span{cur.String(), style})
			cur.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '`':
			if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
				flush(plain)
				out = append(out, span{s[i+1 : i+1+j], code})
				i += j + 2
				continue
			}
		case strings.HasPrefix(s[i:], "**"):
			if j := strings.Index(s[i+2:], "**"); j > 0 {
				flush(plain)
				out = append(out, span{s[i+2 : i+2+j], strong})
				i += j + 4
				continue
			}
		case s[i] == '*' || s[i] == '_':
			// emphasis: drop the markers when they pair up within the text
			if j := strings.IndexByte(s[i+1:], s[i]); j > 0 && s[i+1] != ' ' && (i == 0 || s[i-1] == ' ' || s[i-1] == '(') {
				cur.WriteString(s[i+1 : i+1+j])
				i += j + 2
				continue
			}
		case s[i] == '[':
			if j := strings.Index(s[i:], "]("); j > 0 {
				if k := strings.IndexByte(s[i+j:], ')'); k > 0 {
					cur.WriteString(s[i+1:i+j] + " <" + s[i+j+2:i+j+k] + ">")
					i += j + k + 1
					continue
				}
			}
		}
		cur.WriteByte(s[i])
		i++
	}
	flush(plain)
	return out
}

// word is a unit of wrapping: text with a style, glued to the previous
// word when glue is set (no space between, as in "`x`,").
type word struct {
	text  string
	style int
	glue  bool
}

func words(spans []span) []word {
	var out []word
	lastSpace := true
	for _, sp := range spans {
		t := sp.text
		startsSpace := strings.HasPrefix(t, " ")
		for i, f := range strings.Fields(t) {
			out = append(out, word{text: f, style: sp.style, glue: i == 0 && !startsSpace && !lastSpace})
		}
		lastSpace = strings.HasSuffix(t, " ") || t == ""
	}
	return out
}

// wrapSpans lays out styled words in lines of at most w cells. Words glued
// together ("(`x`)," ) wrap as one.
func wrapSpans(spans []span, w int, styles [3]lipgloss.Style) []string {
	var groups [][]word
	for _, wd := range words(spans) {
		if wd.glue && len(groups) > 0 {
			groups[len(groups)-1] = append(groups[len(groups)-1], wd)
			continue
		}
		groups = append(groups, []word{wd})
	}
	var lines []string
	var line strings.Builder
	n := 0
	emit := func() {
		lines = append(lines, line.String())
		line.Reset()
		n = 0
	}
	put := func(t string, style int) {
		line.WriteString(styles[style].Render(t))
		n += ansi.StringWidth(t)
	}
	for _, g := range groups {
		gw := 0
		for _, wd := range g {
			gw += ansi.StringWidth(wd.text)
		}
		if n > 0 && n+1+gw > w {
			emit()
		}
		if n > 0 {
			line.WriteByte(' ')
			n++
		}
		for _, wd := range g {
			t := wd.text
			for n+ansi.StringWidth(t) > w { // longer than a line: cut it
				head := ansi.Truncate(t, w-n, "")
				if head == "" {
					if n == 0 {
						break
					}
					emit()
					continue
				}
				put(head, wd.style)
				emit()
				t = t[len(head):]
			}
			put(t, wd.style)
		}
	}
	if n > 0 || len(lines) == 0 {
		emit()
	}
	return lines
}

// Markdown renders src in lines of at most w cells.
func Markdown(src string, w int, st *common.Styles) []string {
	w = max(w, 8)
	src = printableLines(src)
	styles := [3]lipgloss.Style{st.Value, st.Code, st.Strong}
	var out []string
	for _, b := range parseBlocks(src) {
		switch b.kind {
		case bBlank:
			out = append(out, "")
		case bHeading:
			for _, l := range wrapSpans([]span{{b.text, strong}}, w, [3]lipgloss.Style{st.Section, st.Section, st.Section}) {
				out = append(out, l)
			}
		case bFence:
			out = append(out, st.Code.Render(common.Cut("  "+b.text, w)))
		case bItem:
			ind := ansi.StringWidth(b.marker) + 1
			for i, l := range wrapSpans(inline(b.text), w-ind, styles) {
				prefix := strings.Repeat(" ", ind)
				if i == 0 {
					prefix = b.marker + " "
				}
				out = append(out, prefix+l)
			}
		default:
			out = append(out, wrapSpans(inline(b.text), w, styles)...)
		}
	}
	return out
}

// printableLines makes each line of s Printable, keeping the newlines
// that structure Markdown (Printable would show them as \n).
func printableLines(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = evidence.Printable(l)
	}
	return strings.Join(lines, "\n")
}
