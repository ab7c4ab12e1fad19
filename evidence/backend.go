package evidence

// What a Store outside this package needs to keep the contract the way the
// Bleve store and the Matcher keep it: how each field is mapped, the words
// the index keeps of a text, a leaf's pattern, a range's bounds, and the
// counts kept at ingest. A backend translates the typed query with these
// rather than re-deriving the mapping (evidence/vlogs).

// FieldType is how the index maps a field, and so how a query on it
// matches.
type FieldType = fieldKind

// The field types.
const (
	FieldExact   FieldType = kwField   // one exact value
	FieldList    FieldType = listField // several exact values
	FieldInteger FieldType = intField  // a number matched as its decimal value
	FieldText    FieldType = textField // analysed: words, lowercased
	FieldNumber  FieldType = numField  // numeric, for ranges
	FieldTime    FieldType = timeField // the event's time
)

// Type returns how the index maps f.
func (f Field) Type() FieldType { return f.kind }

// Name is the field's name ("" for the catch-all field of bare words).
func (f Field) Name() string { return f.name }

// Texts returns the non-empty texts a text field analyses for ev: one for
// message, cmdline, url and path; message, command line, URL, path, host
// and the raw record's values (its first 8 KiB) for the catch-all field.
func (f Field) Texts(ev *Event) []string {
	if f.kind != textField {
		return nil
	}
	var out []string
	for _, s := range f.parts(ev) {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Number returns a numeric or integer field's value, 0 when absent (zero
// is not indexed).
func (f Field) Number(ev *Event) int64 {
	if f.num == nil {
		return 0
	}
	return f.num(ev)
}

// MayContainFold reports whether s may contain sub (lowercase ASCII),
// ignoring ASCII case: exactly in ASCII text; outside ASCII it says yes,
// since a case-insensitive expression folds letters there too (ſ to s).
func MayContainFold(s, sub string) bool { return containsFold(s, sub) }

// QueryWords returns the distinct words of a query's value on a text
// field, as a term query looks them up (whole, not cut).
func QueryWords(text string) []string { return queryAnalyzer.words(text) }

// Pattern is the regular expression over a whole value (a whole word, on
// text) that a term, prefix, wildcard or regexp leaf means, unanchored;
// a folded leaf starts with (?i).
func (q Query) Pattern() string { return leafRegexp(q, false) }

// Bounds returns a numeric range's ends, each nil when open, and whether
// each is included.
func (q Query) Bounds() (lo, hi *float64, loIncl, hiIncl bool) {
	return q.lo, q.hi, q.loIncl, q.hiIncl
}

// Check refuses a query built in code that names a field the index lacks
// or holds a bad regular expression; errors wrap ErrQuery.
func (q Query) Check() error { return q.check() }

// NewestFirst reads a search's order: true for SortTimeDesc, false for
// SortTime and SortScore, an error for any other.
func (r Request) NewestFirst() (bool, error) { return r.newestFirst() }

// Add counts one more event.
func (c *Counts) Add(ev *Event) { c.add(ev) }

// Remove counts one event less (one counted by Add).
func (c *Counts) Remove(ev *Event) { c.remove(ev) }

// Clone returns a copy that shares no map with c.
func (c Counts) Clone() Counts { return c.clone() }

// NewPage returns a timeline page of evs (in time order) with its cursors.
func NewPage(evs []Event, more bool) *Page { return newPage(evs, more) }

// MaxAllRaw is how much of a raw record bare words search: its first
// MaxAllRaw bytes.
const MaxAllRaw = maxAllRaw

// NewPrepared returns a batch a backend prepared its own way (records
// built, say), for its IndexPrepared: payload is the backend's, events
// the batch as given.
func NewPrepared(events []Event, payload any) *Prepared {
	return &Prepared{events: events, payload: payload}
}

// Payload returns what the backend's Prepare kept with the batch.
func (p *Prepared) Payload() any { return p.payload }
