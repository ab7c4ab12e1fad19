package audit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// call is one record of a batch, normalized, with its bytes and the key
// of the run of routine calls it belongs to ("" for none).
type call struct {
	ev  evidence.Event
	raw json.RawMessage
	key string
}

// tagFolded marks an event that stands for a run of routine calls.
const tagFolded = "folded"

// minFold is the shortest run worth counting instead of keeping.
const minFold = 3

func plain(calls []call) []evidence.Event {
	out := make([]evidence.Event, len(calls))
	for i := range calls {
		out[i] = calls[i].ev
		if len(calls[i].raw) > 0 {
			out[i].Raw = string(calls[i].raw)
		}
	}
	return out
}

// foldRoutine keeps every call of a batch but the routine ones (read-only
// Describe, List and Get calls) of which one identity made minFold or
// more from one place to one service: of those it keeps the first and
// the last, each saying how many calls they stand for and which, and the
// last carrying the count of the ones left out (parse.TagRoutine). The
// first and last bound the run, so a use after a stop time is never
// counted away; the uses in between are in the count, not the index.
func foldRoutine(calls []call) []evidence.Event {
	runs := map[string][]int{}
	for i := range calls {
		if k := calls[i].key; k != "" {
			runs[k] = append(runs[k], i)
		}
	}
	keep := make([]bool, len(calls))
	summary := map[int]string{}
	for i := range calls {
		idx := runs[calls[i].key]
		if calls[i].key == "" || len(idx) < minFold {
			keep[i] = true
			continue
		}
		first, last := idx[0], idx[len(idx)-1]
		if i != first && i != last {
			continue
		}
		keep[i] = true
		summary[i] = foldText(calls, idx, i == first)
	}
	var out []evidence.Event
	for i := range calls {
		if !keep[i] {
			continue
		}
		ev := calls[i].ev
		ev.Raw = string(calls[i].raw)
		if s, ok := summary[i]; ok {
			idx := runs[calls[i].key]
			ev.Tags = append(ev.Tags[:len(ev.Tags):len(ev.Tags)], tagFolded)
			if i == idx[len(idx)-1] {
				ev.Tags = append(ev.Tags, parse.TagRoutine+strconv.Itoa(len(idx)-2))
			}
			ev.Message = parse.Message(ev.Message, s)
		}
		out = append(out, ev)
	}
	return out
}

// foldText says what a run's first or last call stands for.
func foldText(calls []call, idx []int, first bool) string {
	counts := map[string]int{}
	for _, i := range idx {
		counts[calls[i].ev.Method]++
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Slice(names, func(a, b int) bool {
		if counts[names[a]] != counts[names[b]] {
			return counts[names[a]] > counts[names[b]]
		}
		return names[a] < names[b]
	})
	var parts []string
	for i, n := range names {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("%d more", len(names)-4))
			break
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", n, counts[n]))
	}
	other := calls[idx[len(idx)-1]].ev.Time
	which, rel := "first", "the last at "
	if !first {
		which, rel, other = "last", "the first at ", calls[idx[0]].ev.Time
	}
	return fmt.Sprintf("[%s of %d routine read-only calls (%s), %s%s; the %d between are counted, not indexed]",
		which, len(idx), strings.Join(parts, ", "), rel, other.UTC().Format(time.TimeOnly), len(idx)-2)
}
