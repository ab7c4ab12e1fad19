package evidence

import (
	"bytes"
	"encoding/gob"
	"time"
)

// wireQuery is a Query as plain data, node for node: what crosses from
// one cordon process to another (a reader served by a following ingest)
// is the query itself, never its text read back.
type wireQuery struct {
	Op                   Op
	Field, Value         string
	Values               []string
	Fold                 bool
	Lo, Hi               *float64
	LoIncl, HiIncl       bool
	Since, Until         time.Time
	SinceExcl, UntilIncl bool
	Subs                 []wireQuery
}

func toWire(q Query) wireQuery {
	w := wireQuery{Op: q.op, Field: q.field, Value: q.value, Values: q.values, Fold: q.fold, Lo: q.lo, Hi: q.hi,
		LoIncl: q.loIncl, HiIncl: q.hiIncl, Since: q.since, Until: q.until, SinceExcl: q.sinceExcl, UntilIncl: q.untilIncl}
	for _, s := range q.subs {
		w.Subs = append(w.Subs, toWire(s))
	}
	return w
}

func fromWire(w wireQuery) Query {
	q := Query{op: w.Op, field: w.Field, value: w.Value, values: w.Values, fold: w.Fold, lo: w.Lo, hi: w.Hi,
		loIncl: w.LoIncl, hiIncl: w.HiIncl, since: w.Since, until: w.Until, sinceExcl: w.SinceExcl, untilIncl: w.UntilIncl}
	for _, s := range w.Subs {
		q.subs = append(q.subs, fromWire(s))
	}
	return q
}

// GobEncode writes the query node for node (gob would otherwise take its
// text form).
func (q Query) GobEncode() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(toWire(q))
	return b.Bytes(), err
}

// GobDecode reads a query GobEncode wrote.
func (q *Query) GobDecode(b []byte) error {
	var w wireQuery
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&w); err != nil {
		return err
	}
	*q = fromWire(w)
	return nil
}
