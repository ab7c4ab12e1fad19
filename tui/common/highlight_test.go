package common

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/muesli/termenv"
)

func TestHitTerms(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"curl", []string{"curl"}},
		{"curl OR wget agent:agent-7", []string{"curl", "wget", "agent-7"}},
		{"-agent:agent-7 nohup", []string{"nohup"}},
		{"dst_host:*.example.com", []string{".example.com"}},
		{"x", nil}, // one letter would light up every row
	} {
		q, err := evidence.Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		if got := HitTerms(q); !slices.Equal(got, c.want) {
			t.Errorf("HitTerms(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

func TestHighlight(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	base, hit := r.NewStyle(), r.NewStyle().Reverse(true)
	got := Highlight("run CURL -s then curl", []string{"curl"}, base, hit)
	if n := strings.Count(got, "\x1b[7m"); n != 2 {
		t.Errorf("want both hits reversed, got %d in %q", n, got)
	}
	if plain := Highlight("no hit here", []string{"curl"}, base, hit); strings.Contains(plain, "\x1b[7m") {
		t.Errorf("a line without the word is marked: %q", plain)
	}
}
