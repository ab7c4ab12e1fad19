package common

import (
	"io"
	"math"
	"strconv"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// contrast is the WCAG contrast ratio of two ANSI 256 colours.
func contrast(a, b string) float64 {
	lum := func(c string) float64 {
		n, _ := strconv.Atoi(c)
		rgb := termenv.ConvertToRGB(termenv.ANSI256Color(n))
		lin := func(v float64) float64 {
			if v <= 0.03928 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return 0.2126*lin(rgb.R) + 0.7152*lin(rgb.G) + 0.0722*lin(rgb.B)
	}
	la, lb := lum(a), lum(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestPalettesLegible: every colour that carries text reads on the
// background it is meant for (white for the light palette, black for the
// dark one) and on the selected row's background, at the 3:1 WCAG asks of
// bold and large text; a light terminal never gets the dark palette's
// pale greys.
func TestPalettesLegible(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Palette
		bg   string
	}{
		{"light", LightPalette(), "231"},
		{"dark", DarkPalette(), "16"},
	} {
		p := tc.p
		for role, c := range map[string]lipgloss.Color{
			"Fg": p.Fg, "Dim": p.Dim, "Accent": p.Accent, "Deny": p.Deny, "Allow": p.Allow,
			"Error": p.Error, "Warn": p.Warn, "Info": p.Info, "Mark": p.Mark,
		} {
			for _, bg := range []string{tc.bg, string(p.Selected)} {
				if r := contrast(string(c), bg); r < 3 {
					t.Errorf("%s palette: %s (%s) on %s has contrast %.2f, under 3", tc.name, role, c, bg, r)
				}
			}
		}
	}
}

// TestLightAndDarkStylesDiffer: the light styles are not the dark ones
// (a light terminal gets its own colours), and both keep the text.
func TestLightAndDarkStylesDiffer(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	light, dark := DefaultStyles(r, false), DefaultStyles(r, true)
	for name, pair := range map[string][2]lipgloss.Style{
		"Row": {light.Row, dark.Row}, "RowSelected": {light.RowSelected, dark.RowSelected},
		"Deny": {light.Deny, dark.Deny}, "Section": {light.Section, dark.Section},
		"Dim": {light.Dim, dark.Dim}, "Link": {light.Link, dark.Link}, "Filter": {light.Filter, dark.Filter},
	} {
		l, d := pair[0].Render("DENY"), pair[1].Render("DENY")
		if l == d {
			t.Errorf("%s renders the same on light and dark backgrounds: %q", name, l)
		}
		if lipgloss.Width(l) != 4 || lipgloss.Width(d) != 4 {
			t.Errorf("%s changes the text's width: %q %q", name, l, d)
		}
	}
}
