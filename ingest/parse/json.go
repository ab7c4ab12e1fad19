package parse

import jsonv1 "github.com/go-json-experiment/json/v1"

// Unmarshal decodes data into v as encoding/json.Unmarshal does (the same
// names, leniencies and errors but for the wording of a few syntax
// errors), in one pass rather than a validation and then a decoding: the
// parsers, which an ingest runs by the million, decode each record with it
// (Tetragon's 1.8 times as fast). Not for a value holding an
// encoding/json.Number, which this engine does not know (it fails as a
// type error): Inspect's logs, which keep numbers as they are written,
// are read with encoding/json.
func Unmarshal(data []byte, v any) error { return jsonv1.Unmarshal(data, v) }
