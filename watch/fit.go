package watch

import (
	"fmt"

	"github.com/cordon-ir/cordon/detect"
)

// A finding's message must fit the server's max_payload (1 MiB unless the
// server says otherwise), and a long episode cites more events than that:
// at a million events the bench's largest cites 11,813 (264 KB as JSON),
// and an agent that keeps at it for ten times as long makes one of ten
// times as many. A message too large is refused by the client, and a
// watcher that cannot publish a finding stops there for good.
//
// So a message names at most maxMessageEvents of a finding's events, the
// first half and the last half of them in the finding's order, with
// event_count saying how many it cites; when even that is too large for
// the server, it names fewer, halving, then cuts the values the same way
// (value_count), then the explanation. The Mark, and so the message's id
// and what the watcher keeps, are the whole finding's: a finding whose
// cut message is unchanged is still announced when it grows.
const maxMessageEvents = 1000

// fitFinding is f as a message names it: at most keep of its events and
// all its values, or fewer of both so that its encoding, with room for
// headers bytes of headers, is at most limit bytes (0: no limit). It
// returns the encoding.
func fitFinding(f detect.Finding, change string, keep int, limit, headers int64) ([]byte, error) {
	f = cutEvents(f, keep)
	vals := len(f.Values)
	for {
		data, err := encodeMessage(f, change)
		if err != nil || limit <= 0 || int64(len(data))+headers <= limit {
			return data, err
		}
		switch {
		case len(f.Events) > 0:
			f = cutEvents(f, len(f.Events)/2)
		case len(f.Values) > 0:
			f = cutValues(f, len(f.Values)/2, vals)
		case f.Explanation != "":
			over := int64(len(data)) + headers - limit
			cut := cutText(f.Explanation, int64(len(f.Explanation))-over-int64(len(cutMark)))
			if cut == f.Explanation {
				cut = "" // the mark alone is too much
			}
			f.Explanation = cut
		default:
			return nil, fmt.Errorf("finding %s is %d bytes without its events, values and explanation, more than the server's max_payload of %d", f.ID, len(data), limit)
		}
	}
}

// cutEvents names at most keep of f's events: the first half and the
// last (the first one more when keep is odd).
func cutEvents(f detect.Finding, keep int) detect.Finding {
	n := len(f.Events)
	if n <= keep {
		return f
	}
	ev := make([]string, 0, keep)
	ev = append(ev, f.Events[:keep-keep/2]...)
	ev = append(ev, f.Events[n-keep/2:]...)
	f.Events, f.EventCount = ev, max(f.EventCount, n)
	return f
}

// cutValues names the first keep of f's values, of all in all.
func cutValues(f detect.Finding, keep, all int) detect.Finding {
	f.Values, f.ValueCount = f.Values[:keep:keep], all
	return f
}

const cutMark = " … (cut to fit a message)"

// cutText is s cut to at most n bytes, on a rune boundary, and marked.
func cutText(s string, n int64) string {
	n = max(n, 0)
	for n > 0 && n < int64(len(s)) && s[n]&0xC0 == 0x80 {
		n--
	}
	if n >= int64(len(s)) {
		return s
	}
	return s[:n] + cutMark
}
