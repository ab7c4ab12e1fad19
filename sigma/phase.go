package sigma

// tacticPhase is the playbook phase a finding feeds, by the ATT&CK tactic
// its rule is tagged with: what a responder does first about it. A
// credential read or data leaving is contained (keys revoked, egress cut),
// persisted state is eradicated, discovery and execution are triaged.
var tacticPhase = map[string]string{
	"attack.credential-access":    "contain",
	"attack.exfiltration":         "contain",
	"attack.command-and-control":  "contain",
	"attack.lateral-movement":     "contain",
	"attack.privilege-escalation": "contain",
	"attack.persistence":          "eradicate",
	"attack.impact":               "recover",
	"attack.discovery":            "triage",
	"attack.execution":            "triage",
	"attack.defense-evasion":      "triage",
	"attack.collection":           "triage",
	"attack.initial-access":       "triage",
	"attack.reconnaissance":       "detect",
	"attack.resource-development": "detect",
}

// phaseOf is the phase of the first of tags that names a tactic (written
// with - or _, as SigmaHQ's older rules do), else detect.
func phaseOf(tags []string) string {
	for _, t := range tags {
		if p, ok := tacticPhase[normTag(t)]; ok {
			return p
		}
	}
	return "detect"
}

func normTag(t string) string {
	b := []byte(t)
	for i, c := range b {
		switch {
		case c == '_':
			b[i] = '-'
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
