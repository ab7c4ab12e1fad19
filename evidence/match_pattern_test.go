package evidence

import (
	"strings"
	"testing"
)

func TestLiterals(t *testing.T) {
	for re, want := range map[string]string{
		`cat|tar|proxy\.env`: "cat,tar,proxy.env",
		`cron.*`:             "",
		`.env`:               "",
		`python[0-9]`:        "",
		`a||b`:               "",
		`Cat`:                "",
	} {
		if got := strings.Join(literals(re), ","); got != want {
			t.Errorf("literals(%q) = %q, want %q", re, got, want)
		}
	}
}
