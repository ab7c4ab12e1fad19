package timeline

import "strings"

// labelled is a query (as text) and the words the header shows for it: a
// list of ids says nothing to a responder, "finding boundary-probing · agent-7 ·
// 35 events" does. The query stays what runs.
type labelled struct{ query, label string }

// labels are the filter's and the search's, kept with them so that
// clearing either removes its label too.
type labels struct{ filter, search labelled }

// text is q as the header shows it: the label while q is the labelled
// query, followed by any clause added since (a facet, an agent).
func (l labelled) text(q string) string {
	switch {
	case l.label == "" || q == "":
		return q
	case q == l.query:
		return l.label
	case strings.HasPrefix(q, l.query+" "):
		return l.label + " " + strings.TrimSpace(q[len(l.query):])
	}
	return q
}

// keep drops a label whose query is no longer part of the filter or the
// search.
func (ls labels) keep(filter, search string) labels {
	if ls.filter.text(filter) == filter {
		ls.filter = labelled{}
	}
	if ls.search.text(search) == search {
		ls.search = labelled{}
	}
	return ls
}
