package detect

import (
	"slices"
	"strings"
	"testing"
)

// TestBuiltinRulesHaveAttackTags: every built-in rule names the ATT&CK
// technique it detects, but those no technique fits (docs/rules.md says
// why), and its findings carry the tags.
func TestBuiltinRulesHaveAttackTags(t *testing.T) {
	noTechnique := map[string]bool{"action-rate": true, "intent-mismatch": true, "plan-divergence": true,
		"denial-adaptation": true, "persistence-after-session-end": true}
	rules, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		technique := false
		for _, tag := range r.Tags {
			technique = technique || strings.HasPrefix(tag, "attack.t")
		}
		if technique == noTechnique[r.ID] {
			t.Errorf("rule %s: tags %v (a technique: %v, want %v)", r.ID, r.Tags, technique, !noTechnique[r.ID])
		}
		if f := r.newFinding("agent-1", []hit{{id: "e1"}}, map[string]string{}); !slices.Equal(f.Tags, r.Tags) {
			t.Errorf("rule %s: finding tags %v, want %v", r.ID, f.Tags, r.Tags)
		}
	}
}
