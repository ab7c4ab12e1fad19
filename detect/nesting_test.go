package detect_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/detect"
)

// A rule file whose query nests 400,000 levels deep is refused with its
// file and line, not a stack overflow.
func TestRuleQueryNestingIsBounded(t *testing.T) {
	deep := 400_000
	data := "id: deep\ntitle: Deep\nseverity: low\nphase: detect\nexplain: \"{{count}}\"\nquery: \"" + strings.Repeat("(", deep) + "kind:x" + strings.Repeat(")", deep) +
		"\"\ncorrelation:\n  type: event_count\n  window: 1m\n  condition:\n    gte: 1\n"
	_, err := detect.Parse("deep.yaml", []byte(data))
	var re *detect.RuleError
	if !errors.As(err, &re) || re.File != "deep.yaml" || re.Line != 6 || !strings.Contains(err.Error(), "nests deeper than 100") || len(err.Error()) > 1000 {
		t.Fatalf("%.300v", err)
	}
}
