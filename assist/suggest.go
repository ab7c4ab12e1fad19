package assist

import (
	"encoding/json"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// Suggestion is the query task's answer: a cordon query for the
// responder's question, never run until the responder accepts it.
type Suggestion struct {
	// Query is the query as the model wrote it, in cordon's syntax.
	Query       string   `json:"query"`
	Explanation string   `json:"explanation,omitempty"`
	EventIDs    []string `json:"event_ids,omitempty"`
	// Err says why Query does not parse (evidence.Parse), when it does
	// not: such a query is shown, never run.
	Err string `json:"error,omitempty"`
	// Hits is how many events the query finds, counted for the preview;
	// -1 when it was not counted.
	Hits int `json:"hits"`
}

// Runnable reports whether the suggestion is a query that parses.
func (s Suggestion) Runnable() bool { return s.Query != "" && s.Err == "" }

// Parsed is the suggestion's query, parsed by the one parser of what
// people type.
func (s Suggestion) Parsed() (evidence.Query, error) { return evidence.Parse(s.Query) }

// querySchema is the JSON schema of the query task's reply.
var querySchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"explanation":{"type":"string"},"event_ids":{"type":"array","items":{"type":"string"}}},"required":["query","explanation"],"additionalProperties":false}`)

// ParseSuggestion reads the query task's reply tolerantly, as ParseAnswer
// reads the others, and checks the query with evidence.Parse. The answer
// it returns holds one claim, the explanation citing the events whose
// values the query uses, so that the citations are checked like every
// other answer's.
func ParseSuggestion(text string) (Suggestion, Answer) {
	var raw struct {
		Query       string   `json:"query"`
		Explanation string   `json:"explanation"`
		EventIDs    []string `json:"event_ids"`
	}
	obj, ok := firstObject(text)
	if !ok {
		obj, ok = firstObject(escapeControls(text))
	}
	if !ok || json.Unmarshal([]byte(obj), &raw) != nil {
		s := Suggestion{Err: "the reply holds no query", Hits: -1}
		return s, Answer{Claims: []Claim{{Text: strings.TrimSpace(stripFences(text))}}}
	}
	s := Suggestion{Query: strings.TrimSpace(raw.Query), Explanation: strings.TrimSpace(raw.Explanation), Hits: -1}
	for _, id := range raw.EventIDs {
		if id = strings.TrimSpace(id); id != "" {
			s.EventIDs = append(s.EventIDs, id)
		}
	}
	switch {
	case s.Query == "":
		s.Err = "the model wrote no query"
	default:
		if _, err := evidence.Parse(s.Query); err != nil {
			s.Err = err.Error()
		}
	}
	a := Answer{Structured: true}
	if s.Explanation != "" || len(s.EventIDs) > 0 {
		a.Claims = []Claim{{Text: s.Explanation, EventIDs: s.EventIDs}}
	}
	if s.Err != "" {
		a.Notes = "the query cannot run: " + s.Err
	}
	return s, a
}
