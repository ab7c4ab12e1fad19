package assist

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/detect"
)

// Claim is one statement of an answer and the events it rests on.
type Claim struct {
	Text     string   `json:"text"`
	EventIDs []string `json:"event_ids"`
	Phase    string   `json:"phase,omitempty"`
	// CitesReal: the claim cites at least one id and every id it cites is
	// in the packet, so the events it rests on are real. That alone says
	// nothing of whether they bear it out: see Support. Set by Verify.
	CitesReal bool `json:"cites_real_events"`
	// Unknown lists cited ids the packet does not hold.
	Unknown []string `json:"unknown_ids,omitempty"`
	// Support is the check of the entities the claim names against the
	// events it cites; nil when not checked (an exchange journaled before
	// the check existed). Set by Verify.
	Support *Support `json:"support,omitempty"`
}

// UnmarshalJSON reads a claim, including one journaled when CitesReal was
// called "verified".
func (c *Claim) UnmarshalJSON(data []byte) error {
	type plain Claim
	var v struct {
		plain
		Verified *bool `json:"verified"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*c = Claim(v.plain)
	if v.Verified != nil && !c.CitesReal {
		c.CitesReal = *v.Verified
	}
	return nil
}

// Supported reports whether the claim cites real events and every entity
// it names is in them.
func (c Claim) Supported() bool {
	return c.CitesReal && c.Support != nil && len(c.Support.Missing) == 0
}

// Verdict is the claim's standing in words, the same on every surface:
// UNVERIFIED when its citations fail, otherwise "cites real events" and
// what the support check found.
func (c Claim) Verdict() string {
	switch {
	case len(c.EventIDs) == 0:
		return "UNVERIFIED (cites no event)"
	case !c.CitesReal:
		return "UNVERIFIED (unknown ids: " + strings.Join(c.Unknown, " ") + ")"
	case c.Support == nil:
		return "cites real events (support not checked)"
	case len(c.Support.Missing) > 0:
		return "cites real events, NOT SUPPORTED: " + strings.Join(c.Support.Missing, "; ")
	case len(c.Support.Entities) == 0:
		return "cites real events, names nothing to check"
	}
	where := "which hold"
	if c.Support.InPacket {
		where = "and the packet holds"
	}
	if len(c.Support.Entities) == 1 {
		return "cites real events, " + where + " the entity it names"
	}
	return fmt.Sprintf("cites real events, %s the %d entities it names", where, len(c.Support.Entities))
}

// Answer is the assistant's reply in the schema every task asks for.
type Answer struct {
	Claims []Claim `json:"claims"`
	Notes  string  `json:"notes,omitempty"`
	// Structured is false when the reply was not JSON and became one
	// uncited claim.
	Structured bool `json:"structured"`
	// Offline: built by rules, without a model.
	Offline bool `json:"offline,omitempty"`
	// Truncated: the reply was cut off (at the reply's limit, or it
	// never closed); Claims are the ones that were complete.
	Truncated bool `json:"truncated,omitempty"`
}

// Uncited counts the claims that do not cite real events.
func (a Answer) Uncited() int {
	n := 0
	for _, c := range a.Claims {
		if !c.CitesReal {
			n++
		}
	}
	return n
}

// Unsupported counts the claims that cite real events but name something
// those events do not hold.
func (a Answer) Unsupported() int {
	n := 0
	for _, c := range a.Claims {
		if c.CitesReal && c.Support != nil && len(c.Support.Missing) > 0 {
			n++
		}
	}
	return n
}

// ParseAnswer reads a model's reply tolerantly: it strips code fences,
// takes the first JSON object, and falls back to the whole text as one
// uncited claim. The strings are kept as the model wrote them, like the
// evidence they may echo (escape sequences planted in it included): every
// reader that shows them makes them printable, once, as it does for the
// offline answer's claims.
func ParseAnswer(text string) Answer {
	var raw struct {
		Claims []struct {
			Text     string   `json:"text"`
			EventIDs []string `json:"event_ids"`
			Phase    string   `json:"phase"`
		} `json:"claims"`
		Notes string `json:"notes"`
	}
	obj, ok := firstObject(text)
	if !ok {
		// Models sometimes put raw line breaks or escape bytes inside JSON
		// strings; escaped, the object decodes.
		obj, ok = firstObject(escapeControls(text))
	}
	if ok && json.Unmarshal([]byte(obj), &raw) == nil && (raw.Claims != nil || raw.Notes != "") {
		a := Answer{Notes: strings.TrimSpace(raw.Notes), Structured: true}
		for _, c := range raw.Claims {
			cl := Claim{Text: strings.TrimSpace(c.Text), Phase: phase(c.Phase)}
			for _, id := range c.EventIDs {
				if id = strings.TrimSpace(id); id != "" {
					cl.EventIDs = append(cl.EventIDs, id)
				}
			}
			if cl.Text != "" || len(cl.EventIDs) > 0 {
				a.Claims = append(a.Claims, cl)
			}
		}
		return a
	}
	t := strings.TrimSpace(stripFences(text))
	if t == "" {
		return Answer{}
	}
	return Answer{Claims: []Claim{{Text: t}}}
}

// Verify checks each claim against the packet: it cites real events when
// it cites at least one id and every cited id is in the packet (the
// unknown ones are listed), and the support check tests the entities it
// names against the events it cites.
func Verify(a Answer, p Packet) Answer {
	out := a
	out.Claims = make([]Claim, len(a.Claims))
	for i, c := range a.Claims {
		c.Unknown = nil
		for _, id := range c.EventIDs {
			if !p.Has(id) {
				c.Unknown = append(c.Unknown, id)
			}
		}
		c.CitesReal = len(c.EventIDs) > 0 && len(c.Unknown) == 0
		s := check(c, p, a.Offline)
		c.Support = &s
		out.Claims[i] = c
	}
	return out
}

// phase keeps a playbook phase and drops anything else.
func phase(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range detect.Phases() {
		if s == p {
			return s
		}
	}
	return ""
}

func stripFences(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			s = s[nl+1:]
		} else {
			s = strings.TrimPrefix(s, "```")
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	return s
}

// firstObject finds the first balanced JSON object in s, minding strings
// and escapes, and whether it decodes.
func firstObject(s string) (string, bool) {
	s = stripFences(s)
	for start := strings.IndexByte(s, '{'); start >= 0; {
		depth, inStr, esc := 0, false, false
		for i := start; i < len(s); i++ {
			c := s[i]
			switch {
			case esc:
				esc = false
			case inStr && c == '\\':
				esc = true
			case c == '"':
				inStr = !inStr
			case inStr:
			case c == '{':
				depth++
			case c == '}':
				depth--
				if depth == 0 {
					if obj := s[start : i+1]; json.Valid([]byte(obj)) {
						return obj, true
					}
					i = len(s)
				}
			}
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return "", false
}

// Text renders a as plain text, one claim a line with its phase, ids and
// verdict, then the notes.
func (a Answer) Text() string {
	var b strings.Builder
	for _, c := range a.Claims {
		mark := "ok"
		switch {
		case len(c.EventIDs) == 0:
			mark = "UNCITED"
		case !c.CitesReal:
			mark = "UNKNOWN " + strings.Join(c.Unknown, ",")
		case c.Support != nil && len(c.Support.Missing) > 0:
			mark = "NOT SUPPORTED: " + strings.Join(c.Support.Missing, "; ")
		}
		ph := c.Phase
		if ph == "" {
			ph = "-"
		}
		b.WriteString("[" + ph + "] " + c.Text + "  {" + strings.Join(c.EventIDs, ",") + "} " + mark + "\n")
	}
	if a.Notes != "" {
		b.WriteString("notes: " + a.Notes + "\n")
	}
	if a.Truncated {
		b.WriteString(a.TruncatedLine() + "\n")
	}
	return b.String()
}

// escapeControls escapes the control bytes that sit inside JSON strings,
// which JSON forbids raw.
func escapeControls(s string) string {
	var b strings.Builder
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr && c < 0x20:
			fmt.Fprintf(&b, "\\u%04x", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// TruncatedLine says what was kept of a reply that was cut off.
func (a Answer) TruncatedLine() string {
	return fmt.Sprintf("TRUNCATED: the reply was cut off; the %d claims that were complete are kept, the rest is lost (raise max_tokens for more)", len(a.Claims))
}
