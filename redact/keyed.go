package redact

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"regexp"
	"sync"
)

// Keyed returns a Redactor whose placeholder for a secret is a keyed hash
// of it, [SECRET-3f9a1c2e5b]: the same in every output made with the key
// (a case's report, bundle and exports), so a reader can follow one
// credential from one to the next, and meaningless without the key, so a
// short password cannot be guessed back from its placeholder.
func Keyed(key []byte) *Redactor {
	return &Redactor{key: append([]byte(nil), key...)}
}

// keyedName is the placeholder's name for secret under key.
func keyedName(key []byte, secret string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(secret))
	return hex.EncodeToString(m.Sum(nil))[:10]
}

// Walk redacts, in place, every string v reaches: through pointers,
// exported struct fields, slices, arrays, interfaces and map values. Map keys are left alone (they are names: agents, kinds). It is
// how a whole report or export is redacted at once, so that a field added
// later is redacted too.
func Walk(v any, r *Redactor) {
	walk(reflect.ValueOf(v), r)
}

func walk(v reflect.Value, r *Redactor) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walk(v.Elem(), r)
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer || !v.CanSet() {
			walk(e, r)
			return
		}
		// A value held in an interface cannot be changed in place: redact
		// a copy and put it back.
		cp := reflect.New(e.Type()).Elem()
		cp.Set(e)
		walk(cp, r)
		v.Set(cp)
	case reflect.Struct:
		// Exported fields only: what an output encodes. Unexported ones are
		// a type's own business (a time.Time's location).
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walk(v.Field(i), r)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return // raw bytes (json.RawMessage): not text to rewrite in place
		}
		for i := range v.Len() {
			walk(v.Index(i), r)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			val := reflect.New(iter.Value().Type()).Elem()
			val.Set(iter.Value())
			walk(val, r)
			v.SetMapIndex(iter.Key(), val)
		}
	case reflect.String:
		// Only a string that held a secret changes: redaction also takes
		// out invisible characters and escapes, which a string without one
		// keeps, for its output to show escaped as it shows all evidence.
		if s := v.String(); s != "" && v.CanSet() && !r.knownClean(s) {
			before := r.count
			if out := r.Redact(s); r.count > before {
				v.SetString(out)
			} else {
				r.noteClean(s)
			}
		}
	}
}

// placeholderRe finds the placeholders a redaction wrote.
// (counted [SECRET-3] or keyed [SECRET-3f9a1c2e5b]: both are hex digits).
var placeholderRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[SECRET-[0-9a-f]+\]`)
})

// Found returns the placeholders of the secrets text holds, each once, in
// the order they appear: the secrets named without ever being kept.
func (r *Redactor) Found(text string) []string {
	before := r.count
	out := r.Redact(text)
	if r.count == before {
		return nil
	}
	had := map[string]bool{}
	for _, p := range placeholderRe().FindAllString(text, -1) {
		had[p] = true
	}
	var found []string
	for _, p := range placeholderRe().FindAllString(out, -1) {
		if !had[p] {
			had[p] = true
			found = append(found, p)
		}
	}
	return found
}

// Short strings that held no secret, remembered so that an export walking
// a million events redacts each agent name, kind, host or path once, not
// once per event. Only the absence of a secret is remembered: a string
// that holds one is redacted (and counted) every time.
const (
	cleanMaxLen     = 256
	cleanMaxEntries = 1 << 16
)

func (r *Redactor) knownClean(s string) bool {
	_, ok := r.clean[s]
	return ok
}

func (r *Redactor) noteClean(s string) {
	if len(s) > cleanMaxLen {
		return
	}
	if r.clean == nil || len(r.clean) >= cleanMaxEntries {
		r.clean = make(map[string]struct{}, 1024)
	}
	r.clean[s] = struct{}{}
}
