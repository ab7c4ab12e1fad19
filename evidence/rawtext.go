package evidence

// RawText is the part of a raw record that bare words search. For a JSON
// record that is its values: the keys are the format's own vocabulary,
// present in every record of the format, so a bare word matching one
// would find them all, and indexing them cost a third of the terms of a
// Tetragon record. true, false and null go too. Values stay as written
// (escapes included), strings and numbers alike. Anything that is not a
// JSON object or array is kept whole.
func RawText(raw string) string {
	i := 0
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r' || raw[i] == '\n') {
		i++
	}
	if i == len(raw) || raw[i] != '{' && raw[i] != '[' {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i < len(raw) {
		c := raw[i]
		switch {
		case c == '"':
			close, next := stringEnd(raw, i+1)
			j := next
			for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\r' || raw[j] == '\n') {
				j++
			}
			if j < len(raw) && raw[j] == ':' {
				i = j + 1 // a key
				continue
			}
			out = append(out, raw[i+1:close]...)
			out = append(out, ' ')
			i = next
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(raw) && (raw[j] >= '0' && raw[j] <= '9' || raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || raw[j] == '+' || raw[j] == '-') {
				j++
			}
			out = append(out, raw[i:j]...)
			out = append(out, ' ')
			i = j
		default:
			i++ // structure, whitespace, true, false, null
		}
	}
	return string(out)
}

// stringEnd scans a JSON string whose content starts at i: close is the
// index of its closing quote and next the index past it (both len(s) for
// an unterminated string).
func stringEnd(s string, i int) (close, next int) {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
		case '"':
			return i, i + 1
		default:
			i++
		}
	}
	return len(s), len(s)
}
