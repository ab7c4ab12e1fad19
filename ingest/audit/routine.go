package audit

import (
	"encoding/json"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// call is one record of a batch, normalized, with its bytes and the key
// of the run of routine calls it may belong to ("" for none).
type call struct {
	ev  evidence.Event
	raw json.RawMessage
	key string
}

// minRoutine is the shortest run of like read-only calls taken for
// routine: an inventory sweep, not one look.
const minRoutine = 3

// tagRoutine returns the events of a batch, each with its record's bytes
// (when the record is not the whole of the batch). The calls of a run of
// minRoutine or more routine ones (read-only Describe, List and Get calls
// of one identity from one place to one service) are tagged
// parse.TagRoutine. Every call is an event: routine is a judgement a view
// may fold by, never a reason to leave a call out of the index, where a
// use after a stop time must be found whatever it looked like.
func tagRoutine(calls []call) []evidence.Event {
	runs := map[string]int{}
	for i := range calls {
		if k := calls[i].key; k != "" {
			runs[k]++
		}
	}
	out := make([]evidence.Event, len(calls))
	for i := range calls {
		ev := calls[i].ev
		if len(calls[i].raw) > 0 {
			ev.Raw = string(calls[i].raw)
		}
		if k := calls[i].key; k != "" && runs[k] >= minRoutine {
			ev.Tags = append(ev.Tags[:len(ev.Tags):len(ev.Tags)], parse.TagRoutine)
		}
		out[i] = ev
	}
	return out
}
