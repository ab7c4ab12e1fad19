package inspect

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// finish emits the sample: session_start, its events in order, and
// session_end unless the sample was cut short by a read error.
func (s *inspectSample) finish(out parse.Sink, partial bool) error {
	for _, r := range s.rejects {
		if err := out.Reject(r); err != nil {
			return sinkError{err}
		}
	}
	pend := s.events
	if !s.hadEvents {
		pend = s.msgs
	}
	start, ok := s.startTime()
	if !ok {
		if len(pend) == 0 && s.id == "" {
			return nil
		}
		if err := out.Reject(parse.Reject{Origin: s.origin, Reason: "sample " + s.key() + " has no time: no events, no started_at, no eval created"}); err != nil {
			return sinkError{err}
		}
		return nil
	}
	idKey := strings.Join([]string{s.h.Eval.RunID, s.h.Eval.EvalID, s.h.Eval.Created, s.key()}, "\x00")
	session, agent := parse.FirstOf(s.uuid, s.key()), s.agent()
	emit := func(ev evidence.Event, path, origin string, sub int) error {
		ev.Run, ev.Session, ev.Agent, ev.AttributedVia = s.h.Eval.RunID, session, agent, "record"
		ev.ID = evidence.MakeID("inspect", 0, sub, []byte(idKey+"\x00"+path))
		ev.Origin = origin
		if err := out.Event(ev); err != nil {
			return sinkError{err}
		}
		return nil
	}
	if err := emit(s.sessionStart(start), "start", s.origin, 0); err != nil {
		return err
	}
	for _, pe := range pend {
		if pe.untimed {
			pe.ev.Time = start
		}
		s.resolve(&pe.ev)
		if err := emit(pe.ev, pe.path, s.origin+"/"+pe.path, pe.sub); err != nil {
			return err
		}
	}
	if partial {
		return nil
	}
	return emit(s.sessionEnd(start), "end", s.origin, 0)
}

// key names the sample as Inspect does: task, sample id, epoch.
func (s *inspectSample) key() string {
	return parse.FirstOf(s.h.Eval.Task, "task") + "/" + parse.FirstOf(s.id, "?") + "/" + parse.FirstOf(s.epoch, "1")
}

// agent is the identity the log gives the agent, else the sample's key.
func (s *inspectSample) agent() string {
	return parse.FirstOf(metaString(s.meta, "agent_id", "agent"), metaString(s.h.Eval.Metadata, "agent_id", "agent"), s.key())
}

// startTime: the sample's start, else its first event, else the eval's.
func (s *inspectSample) startTime() (time.Time, bool) {
	if t, err := inspectTime(s.startedAt); err == nil {
		return t, true
	}
	if !s.first.IsZero() {
		return s.first, true
	}
	for _, v := range []string{s.h.Stats.StartedAt, s.h.Eval.Created} {
		if t, err := inspectTime(v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func (s *inspectSample) sessionStart(start time.Time) evidence.Event {
	spec := s.h.Eval
	objective := parse.CutText(parse.OneLine(parse.FirstOf(spec.Task, "task")+": "+s.resolveText(s.input)), 200)
	ev := evidence.Event{Time: start, Kind: evidence.KindSessionStart, Model: spec.Model, Objective: objective}
	s.bind(&ev)
	ev.Message = parse.Message("session start", spec.Model, snapshotOf(spec.Model, s.outModel), "sample", s.id, "epoch", s.epoch,
		parse.Labelled("sandbox", ev.Sandbox), parse.Labelled("pod", ev.Pod), parse.Labelled("container", ev.Container),
		parse.Labelled("host", ev.Host), parse.Labelled("ip", ev.SrcIP), "objective:", objective)
	ev.Raw = s.headerJSON()
	return ev
}

func (s *inspectSample) sessionEnd(start time.Time) evidence.Event {
	end := start
	if t, err := inspectTime(s.completedAt); err == nil {
		end = t
	} else if s.last.After(end) {
		end = s.last
	}
	ev := evidence.Event{Time: end, Kind: evidence.KindSessionEnd, Status: "completed"}
	detail := ""
	switch {
	case s.err != nil:
		ev.Status, ev.Decision = "error", evidence.DecisionError
		detail = headLine(s.err.Message)
	case s.limit != nil:
		ev.Status = "limit"
		detail = s.limit.Type + " " + s.limit.Limit.String()
	}
	took := ""
	if s.totalTime != "" {
		took = "after " + s.totalTime.String() + "s"
	}
	ev.Message = parse.Message("session end:", ev.Status, detail, took)
	ev.Raw = s.headerJSON()
	return ev
}

// headerJSON is the raw of a session event: what the log says about the
// evaluation and the sample, without the transcript.
func (s *inspectSample) headerJSON() string {
	spec := s.h.Eval
	sample := map[string]any{"id": s.id, "epoch": s.epoch}
	for k, v := range map[string]any{"uuid": s.uuid, "started_at": s.startedAt, "completed_at": s.completedAt, "model": s.outModel} {
		if v != "" {
			sample[k] = v
		}
	}
	if s.meta != nil {
		sample["metadata"] = s.meta
	}
	if s.sandbox != nil {
		sample["sandbox"] = s.sandbox
	}
	if s.err != nil {
		sample["error"] = s.err
	}
	if s.limit != nil {
		sample["limit"] = s.limit
	}
	b, _ := json.Marshal(map[string]any{
		"eval": map[string]any{"run_id": spec.RunID, "eval_id": spec.EvalID, "task": spec.Task, "task_id": spec.TaskID,
			"created": spec.Created, "model": spec.Model, "sandbox": spec.Sandbox},
		"sample": sample,
	})
	return string(b)
}
