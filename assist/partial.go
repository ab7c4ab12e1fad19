package assist

import (
	"encoding/json"
	"strings"
)

// PartialClaims reads the claims of a reply that is not complete JSON: one
// still streaming, or one cut off at the reply's limit. It returns every
// claim whose object is complete, in order, and the notes when they are
// complete too; a claim cut in the middle is left out, never guessed at.
// ok is false when the text does not start an answer object at all.
func PartialClaims(text string) (claims []Claim, notes string, ok bool) {
	claims, notes, _, ok = partialClaims(text)
	return claims, notes, ok
}

// StreamedClaims is PartialClaims for a reply still arriving: the claims
// complete so far, and the text received after the last of them (the
// claim on its way, as the model writes it).
func StreamedClaims(text string) (claims []Claim, pending string, ok bool) {
	claims, _, pending, ok = partialClaims(text)
	return claims, pending, ok
}

func partialClaims(text string) (claims []Claim, notes, pending string, ok bool) {
	s := stripOpenFence(text)
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return nil, "", "", false
	}
	s = s[start:]
	end := 0
	defer func() { pending = strings.TrimLeft(s[end:], ", \t\r\n") }()
	// Walk the top-level object's keys; inside "claims", take each
	// balanced element of the array.
	sc := scanner{s: s}
	if !sc.byte('{') {
		return nil, "", "", false
	}
	for {
		sc.space()
		if sc.byte('}') || sc.done() {
			return claims, notes, "", true
		}
		sc.byte(',')
		sc.space()
		key, kok := sc.str()
		if !kok {
			return claims, notes, "", true
		}
		sc.space()
		if !sc.byte(':') {
			return claims, notes, "", true
		}
		sc.space()
		switch key {
		case "claims":
			if !sc.byte('[') {
				return claims, notes, "", true
			}
			for {
				sc.space()
				if sc.byte(']') {
					break
				}
				sc.byte(',')
				sc.space()
				raw, vok := sc.value()
				if !vok {
					return claims, notes, "", true
				}
				if c, cok := decodeClaim(raw); cok {
					claims = append(claims, c)
					end = sc.i
				}
			}
		case "notes":
			raw, vok := sc.value()
			if !vok {
				return claims, notes, "", true
			}
			_ = json.Unmarshal([]byte(raw), &notes)
			notes = strings.TrimSpace(notes)
		default:
			if _, vok := sc.value(); !vok {
				return claims, notes, "", true
			}
		}
	}
}

// decodeClaim reads one element of "claims", as ParseAnswer does.
func decodeClaim(raw string) (Claim, bool) {
	var c struct {
		Text     string   `json:"text"`
		EventIDs []string `json:"event_ids"`
		Phase    string   `json:"phase"`
	}
	if json.Unmarshal([]byte(raw), &c) != nil && json.Unmarshal([]byte(escapeControls(raw)), &c) != nil {
		return Claim{}, false
	}
	cl := Claim{Text: strings.TrimSpace(c.Text), Phase: phase(c.Phase)}
	for _, id := range c.EventIDs {
		if id = strings.TrimSpace(id); id != "" {
			cl.EventIDs = append(cl.EventIDs, id)
		}
	}
	return cl, cl.Text != "" || len(cl.EventIDs) > 0
}

// stripOpenFence drops a leading code fence whose end may not have come.
func stripOpenFence(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			s = s[nl+1:]
		} else {
			return ""
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(s), "```")
}

// scanner walks JSON text that may stop anywhere.
type scanner struct {
	s string
	i int
}

func (sc *scanner) done() bool { return sc.i >= len(sc.s) }

func (sc *scanner) space() {
	for sc.i < len(sc.s) && strings.IndexByte(" \t\r\n", sc.s[sc.i]) >= 0 {
		sc.i++
	}
}

func (sc *scanner) byte(c byte) bool {
	if sc.i < len(sc.s) && sc.s[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

// str reads a complete string and returns it decoded.
func (sc *scanner) str() (string, bool) {
	raw, ok := sc.value()
	if !ok || !strings.HasPrefix(raw, `"`) {
		return "", false
	}
	var v string
	if json.Unmarshal([]byte(raw), &v) != nil {
		return "", false
	}
	return v, true
}

// value reads one complete value (string, object, array, or a bare
// number, true, false or null) and returns its text; false when the text
// ends before the value does.
func (sc *scanner) value() (string, bool) {
	start := sc.i
	if sc.done() {
		return "", false
	}
	switch sc.s[sc.i] {
	case '"':
		for j := sc.i + 1; j < len(sc.s); j++ {
			switch sc.s[j] {
			case '\\':
				j++
			case '"':
				sc.i = j + 1
				return sc.s[start:sc.i], true
			}
		}
		return "", false
	case '{', '[':
		depth, inStr := 0, false
		for j := sc.i; j < len(sc.s); j++ {
			c := sc.s[j]
			switch {
			case inStr && c == '\\':
				j++
			case c == '"':
				inStr = !inStr
			case inStr:
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					sc.i = j + 1
					return sc.s[start:sc.i], true
				}
			}
		}
		return "", false
	}
	j := sc.i
	for j < len(sc.s) && strings.IndexByte(",}] \t\r\n", sc.s[j]) < 0 {
		j++
	}
	if j == len(sc.s) || j == sc.i {
		return "", false // a number may go on; or no value at all
	}
	sc.i = j
	return sc.s[start:j], true
}

// ParseReply is ParseAnswer for a reply that may have been cut off: with
// cutOff (the endpoint stopped it at the reply's limit), or when the
// reply is an answer object that never closes, it keeps the claims that
// were complete and marks the answer Truncated, instead of turning the
// whole text into one claim that cites nothing.
func ParseReply(text string, cutOff bool) Answer {
	if _, ok := firstObject(text); ok {
		a := ParseAnswer(text)
		if a.Structured {
			return a
		}
	} else if _, ok := firstObject(escapeControls(text)); ok {
		a := ParseAnswer(text)
		if a.Structured {
			return a
		}
	}
	claims, notes, ok := PartialClaims(text)
	if ok && (cutOff || len(claims) > 0) {
		return Answer{Claims: claims, Notes: notes, Structured: true, Truncated: true}
	}
	a := ParseAnswer(text)
	a.Truncated = cutOff
	return a
}
