package common

import (
	"github.com/charmbracelet/lipgloss"
)

// Palette names the console's colours by role. Severity roles carry the
// meaning of a row; the rest only organise the screen.
type Palette struct {
	Fg, Dim, Faint, Accent, Selected lipgloss.Color
	Deny, Allow, Error, Warn, Info   lipgloss.Color
	Mark                             lipgloss.Color
}

// DarkPalette is for dark terminal backgrounds.
func DarkPalette() Palette {
	return Palette{
		Fg: "252", Dim: "245", Faint: "240", Accent: "39", Selected: "237",
		Deny: "203", Allow: "114", Error: "214", Warn: "221", Info: "111",
		Mark: "177",
	}
}

// LightPalette is for light terminal backgrounds.
func LightPalette() Palette {
	return Palette{
		Fg: "235", Dim: "242", Faint: "248", Accent: "25", Selected: "254",
		Deny: "160", Allow: "28", Error: "130", Warn: "94", Info: "25",
		Mark: "90",
	}
}

// Styles are every style the console renders with, built for one renderer
// (one terminal, with its own colour profile and background).
type Styles struct {
	Title, HeaderText, HeaderDim, HeaderPane lipgloss.Style
	Filter, Progress                         lipgloss.Style

	ColHeader, Row, RowSelected, Dim lipgloss.Style
	Cursor, Mark                     lipgloss.Style

	Deny, Allow, ErrorDec, Warn, Info lipgloss.Style

	SparkBar, SparkDeny, SparkCursor lipgloss.Style

	Section, Label, Value, Link, LinkSelected lipgloss.Style
	// Code and Strong render Markdown code spans and emphasis in guidance.
	Code, Strong lipgloss.Style

	Status, StatusError lipgloss.Style
	Prompt, Input       lipgloss.Style
	// Selection is a previous query shown selected in an input (typing
	// replaces it); Match a search hit within a row or a line.
	Selection, Match, MatchSelected lipgloss.Style
	Popup, PopupTitle               lipgloss.Style

	HelpKey, HelpDesc, HelpSep lipgloss.Style
}

// DefaultStyles builds the styles from one palette for the renderer r. With
// NO_COLOR (or no colour support) the renderer drops colour and every
// meaning stays readable through labels and glyphs.
func DefaultStyles(r *lipgloss.Renderer, dark bool) *Styles {
	p := LightPalette()
	if dark {
		p = DarkPalette()
	}
	return PaletteStyles(r, p)
}

// PaletteStyles builds the styles from the palette p (the default for the
// background, with the roles config.yaml overrides).
func PaletteStyles(r *lipgloss.Renderer, p Palette) *Styles {
	s := r.NewStyle
	return &Styles{
		Title:      s().Bold(true).Foreground(p.Accent),
		HeaderText: s().Foreground(p.Fg),
		HeaderDim:  s().Foreground(p.Dim),
		HeaderPane: s().Bold(true).Reverse(true),
		Filter:     s().Foreground(p.Info),
		Progress:   s().Foreground(p.Warn),

		ColHeader:   s().Bold(true).Foreground(p.Dim),
		Row:         s().Foreground(p.Fg),
		RowSelected: s().Bold(true).Background(p.Selected),
		Dim:         s().Foreground(p.Dim),
		Cursor:      s().Bold(true).Foreground(p.Accent),
		Mark:        s().Bold(true).Foreground(p.Mark),

		Deny:     s().Bold(true).Foreground(p.Deny),
		Allow:    s().Foreground(p.Allow),
		ErrorDec: s().Bold(true).Foreground(p.Error),
		Warn:     s().Foreground(p.Warn),
		Info:     s().Foreground(p.Info),

		SparkBar:    s().Foreground(p.Dim),
		SparkDeny:   s().Bold(true).Foreground(p.Deny),
		SparkCursor: s().Bold(true).Foreground(p.Accent),

		Section:      s().Bold(true).Foreground(p.Accent),
		Label:        s().Foreground(p.Dim),
		Value:        s().Foreground(p.Fg),
		Link:         s().Foreground(p.Info),
		LinkSelected: s().Bold(true).Reverse(true),
		Code:         s().Foreground(p.Info),
		Strong:       s().Bold(true),

		Status:      s().Foreground(p.Dim),
		StatusError: s().Bold(true).Foreground(p.Deny),
		Prompt:      s().Bold(true).Foreground(p.Accent),
		Input:       s().Foreground(p.Fg),
		// reversed as well as coloured: a hit must show under NO_COLOR too
		// (and underline is drawn rune by rune, many times the bytes)
		Selection:     s().Reverse(true),
		Match:         s().Bold(true).Reverse(true).Foreground(p.Warn),
		MatchSelected: s().Bold(true).Reverse(true),
		Popup:         s().Border(lipgloss.RoundedBorder()).BorderForeground(p.Accent).Padding(0, 1),
		PopupTitle:    s().Bold(true).Foreground(p.Accent),

		HelpKey:  s().Bold(true).Foreground(p.Accent),
		HelpDesc: s().Foreground(p.Dim),
		HelpSep:  s().Foreground(p.Faint),
	}
}
