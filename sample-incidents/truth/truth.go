// Package truth loads the ground truth of cordon's sample incidents:
// sample-incidents/<scenario>/truth.yaml, written by sample-incidents/gen
// together with the evidence. It says who really made every proxy and
// sensor record, which findings a detector set must raise and which agents
// must get none, so attribution and detectors can be scored against it.
//
// The files are YAML restricted to one entry per line with JSON values (a
// subset every YAML reader accepts); this package reads that subset with
// the standard library only.
package truth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// Detectors are the detector ids findings may name.
var Detectors = []string{"boundary-probing", "destination-expansion", "tool-escalation", "credential-access",
	"credential-misuse", "persistence", "plan-divergence", "action-rate", "denial-adaptation", "intent-mismatch", "workload-created", "binding-conflict"}

// Truth is one scenario's ground truth.
type Truth struct {
	Scenario string         `json:"scenario"`
	Records  map[string]int `json:"records"` // proxy and sensor file -> record (line) count
	Sessions []Session      `json:"sessions"`
	Findings []Finding      `json:"findings"`
	// Benign agents must get no finding of severity medium or above.
	Benign []string `json:"benign"`
	// Attribution is keyed by origin, "file:line" as cordon names it for
	// files given relative to the scenario folder (proxy/access.log:17).
	Attribution map[string]Record `json:"attribution"`
}

// Session is one agent session and the keys bound to it.
type Session struct {
	Agent       string    `json:"agent"`
	Run         string    `json:"run"`
	Session     string    `json:"session"`
	Sandbox     string    `json:"sandbox"`
	Pod         string    `json:"pod"`
	IP          string    `json:"ip"`
	Container   string    `json:"container"` // 64 hex
	Credentials []string  `json:"credentials"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	EndReason   string    `json:"end_reason"`
}

// Finding is one finding a good detector set must raise.
type Finding struct {
	Agent       string    `json:"agent"`
	Detector    string    `json:"detector"`
	MinSeverity string    `json:"min_severity"` // medium, high or critical
	From        time.Time `json:"from"`         // approximate span
	To          time.Time `json:"to"`
	Note        string    `json:"note"`
}

// Record is the truth of one proxy or sensor record.
type Record struct {
	// Agent is the true agent, "" for none (a CI runner, a person).
	Agent string `json:"agent"`
	// ViaExpected is the key that names the agent: container, src_ip, or
	// none (the sandbox started before its session: no key is bound yet).
	ViaExpected string `json:"via_expected,omitempty"`
	// AfterEnd: logged after the agent's session ended, by its sandbox.
	AfterEnd bool `json:"after_end,omitempty"`
	// CredentialOwner: the proxy credential in the record was issued to
	// this agent, not to Agent.
	CredentialOwner string `json:"credential_owner,omitempty"`
	// UsedBy: the agent that put the credential where it was used.
	UsedBy string `json:"used_by,omitempty"`
	// Candidates: from outside every sandbox, with a credential UsedBy was
	// seen to take, attribution names these agents and neither alone.
	Candidates []string `json:"candidates,omitempty"`
	// Actor: the person acting in SandboxAgent's sandbox.
	Actor        string `json:"actor,omitempty"`
	SandboxAgent string `json:"sandbox_agent,omitempty"`
	Note         string `json:"note,omitempty"`
}

// Load reads a truth.yaml file.
func Load(path string) (*Truth, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse reads the line-per-entry YAML the generator writes: top-level
// "key: <json>", or "key:" followed by "  - <json>" items or
// `  "name": <json>` entries.
func Parse(data []byte) (*Truth, error) {
	top := map[string]json.RawMessage{}
	var list []json.RawMessage
	var m map[string]json.RawMessage
	var block string
	flush := func() error {
		var v any
		switch {
		case list != nil:
			v = list
		case m != nil:
			v = m
		}
		if block != "" {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			top[block] = b
		}
		block, list, m = "", nil, nil
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		bad := func(why string) error { return fmt.Errorf("line %d: %s", n, why) }
		switch {
		case !strings.HasPrefix(line, " "):
			if err := flush(); err != nil {
				return nil, err
			}
			key, val, ok := strings.Cut(line, ":")
			if !ok {
				return nil, bad("want key: value")
			}
			if _, dup := top[key]; dup {
				return nil, bad("duplicate key " + key)
			}
			if val = strings.TrimSpace(val); val == "" {
				block, top[key] = key, nil
				continue
			}
			if !json.Valid([]byte(val)) {
				return nil, bad("value is not JSON")
			}
			top[key] = json.RawMessage(val)
		case block == "":
			return nil, bad("indented line outside a block")
		case strings.HasPrefix(trimmed, "- "):
			if m != nil {
				return nil, bad("list item in a mapping")
			}
			item := strings.TrimSpace(trimmed[2:])
			if !json.Valid([]byte(item)) {
				return nil, bad("item is not JSON")
			}
			list = append(list, json.RawMessage(item))
		default:
			if list != nil {
				return nil, bad("mapping entry in a list")
			}
			dec := json.NewDecoder(strings.NewReader(trimmed))
			var key string
			if err := dec.Decode(&key); err != nil {
				return nil, bad("want \"key\": value")
			}
			rest, ok := strings.CutPrefix(strings.TrimSpace(trimmed[dec.InputOffset():]), ":")
			rest = strings.TrimSpace(rest)
			if !ok || !json.Valid([]byte(rest)) {
				return nil, bad("value is not JSON")
			}
			if m == nil {
				m = map[string]json.RawMessage{}
			}
			if _, dup := m[key]; dup {
				return nil, bad("duplicate key " + key)
			}
			m[key] = json.RawMessage(rest)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	doc, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	var t Truth
	if err := dec.Decode(&t); err != nil {
		return nil, err
	}
	return &t, nil
}

// Agents lists the agents of the sessions, each once, in session order.
func (t *Truth) Agents() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range t.Sessions {
		if !seen[s.Agent] {
			seen[s.Agent] = true
			out = append(out, s.Agent)
		}
	}
	return out
}

// IsBenign reports whether agent must get no finding of medium or above.
func (t *Truth) IsBenign(agent string) bool {
	for _, a := range t.Benign {
		if a == agent {
			return true
		}
	}
	return false
}
