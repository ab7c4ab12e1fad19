package parse

import jsonv1 "github.com/go-json-experiment/json/v1"

// Unmarshal decodes data into v as encoding/json.Unmarshal does (the same
// names, leniencies and errors but for the wording of a few syntax
// errors), in one pass rather than a validation and then a decoding: the
// parsers of the sensors' and the ledger's records, which an ingest reads
// by the million, decode each with it (Tetragon's twice as fast).
func Unmarshal(data []byte, v any) error { return jsonv1.Unmarshal(data, v) }
