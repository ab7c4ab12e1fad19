package tetragon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// parser parses the Tetragon JSON export: protobuf-JSON of
// GetEventsResponse, one event key per object beside node_name and time.
type parser struct{}

// New returns the parser for Tetragon JSON export.
func New() parse.Parser { return parser{} }

func (parser) Format() string         { return "tetragon" }
func (parser) Source() string         { return evidence.SourceSensor }
func (parser) Framing() parse.Framing { return parse.JSON }

// tetragonEnvelope are the GetEventsResponse keys beside the event.
var tetragonEnvelope = map[string]bool{
	"node_name": true, "time": true, "cluster_name": true, "node_labels": true, "aggregation_info": true,
}

// tetragonEvents are the event keys Sniff trusts: the OSS oneof and the
// legacy network events of older exports.
var tetragonEvents = map[string]bool{
	"process_exec": true, "process_exit": true, "process_kprobe": true, "process_tracepoint": true,
	"process_uprobe": true, "process_lsm": true, "process_usdt": true, "process_loader": true,
	"process_throttle": true, "rate_limit_info": true,
	"process_connect": true, "process_close": true, "process_listen": true, "process_accept": true,
}

// Sniff wants exactly one known event key holding an object.
func (parser) Sniff(rec []byte) bool {
	var top map[string]json.RawMessage
	if parse.Unmarshal(rec, &top) != nil {
		return false
	}
	key, body, err := tetragonEvent(top)
	return err == nil && tetragonEvents[snakeCase(key)] && len(body) > 0 && body[0] == '{'
}

// tetragonEvent finds the one event key: an object-valued key that is not
// part of the envelope.
func tetragonEvent(top map[string]json.RawMessage) (string, json.RawMessage, error) {
	var keys []string
	for k, v := range top {
		v = bytes.TrimSpace(v)
		if tetragonEnvelope[snakeCase(k)] || len(v) == 0 || v[0] != '{' {
			continue
		}
		keys = append(keys, k)
	}
	switch len(keys) {
	case 1:
		return keys[0], top[keys[0]], nil
	case 0:
		return "", nil, errors.New("tetragon record has no event object")
	}
	sort.Strings(keys)
	return "", nil, fmt.Errorf("tetragon record has %d event keys (%s), want one", len(keys), strings.Join(keys, ", "))
}

type tgProcess struct {
	ExecID       string     `json:"exec_id"`
	Pid          parse.Flex `json:"pid"`
	UID          parse.Flex `json:"uid"`
	Binary       string     `json:"binary"`
	Arguments    string     `json:"arguments"`
	Cwd          string     `json:"cwd"`
	StartTime    string     `json:"start_time"`
	Docker       string     `json:"docker"`
	ParentExecID string     `json:"parent_exec_id"`
	User         struct {
		Name string `json:"name"`
	} `json:"user"`
	Pod struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		Container struct {
			ID string `json:"id"`
		} `json:"container"`
		Labels map[string]string `json:"pod_labels"`
	} `json:"pod"`
}

// tgEvent holds the fields of every event type; each uses its own.
type tgEvent struct {
	Process  *tgProcess `json:"process"`
	Parent   *tgProcess `json:"parent"`
	Time     string     `json:"time"` // process_exit
	Signal   string     `json:"signal"`
	Status   parse.Flex `json:"status"`
	Function string     `json:"function_name"`
	Args     []tgArg    `json:"args"`
	Action   parse.Flex `json:"action"`
	Policy   string     `json:"policy_name"`
	Message  string     `json:"message"`
	Tags     []string   `json:"tags"`
	Subsys   string     `json:"subsys"` // process_tracepoint
	Event    string     `json:"event"`
	Symbol   string     `json:"symbol"` // process_uprobe
	Path     string     `json:"path"`   // process_loader, process_uprobe
	// process_throttle, rate_limit_info
	Type    string     `json:"type"`
	Cgroup  string     `json:"cgroup"`
	Dropped parse.Flex `json:"number_of_dropped_process_events"`
	// legacy process_connect and friends
	SrcIP   string     `json:"source_ip"`
	SrcPort parse.Flex `json:"source_port"`
	DstIP   string     `json:"destination_ip"`
	DstPort parse.Flex `json:"destination_port"`
	Proto   string     `json:"protocol"`
}

func (parser) Parse(rec parse.Record) ([]evidence.Event, error) {
	top, err := tetragonTop(rec.Data)
	if err != nil {
		return nil, err
	}
	key, body, err := tetragonEvent(top)
	if err != nil {
		return nil, err
	}
	if key != snakeCase(key) { // a gRPC client's camelCase JSON
		data, err := snakeKeys(rec.Data)
		if err != nil {
			return nil, fmt.Errorf("not a tetragon event: %w", err)
		}
		if top, err = tetragonTop(data); err != nil {
			return nil, err
		}
		key = snakeCase(key)
		body = top[key]
	}
	var node, ts string
	if err := optString(top, "node_name", &node); err != nil {
		return nil, err
	}
	if err := optString(top, "time", &ts); err != nil {
		return nil, err
	}
	if !tetragonEvents[key] && node == "" {
		// An unknown event is kept as "other" only inside a Tetragon
		// envelope: a foreign record with one object member is not one.
		return nil, fmt.Errorf("tetragon record has unknown event %q and no node_name", key)
	}
	var e tgEvent
	if err := parse.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("tetragon %s: %w", key, err)
	}
	ev := evidence.Event{Host: node}
	if ev.Time, err = tetragonTime(key, ts, &e, &ev); err != nil {
		return nil, err
	}
	var num parse.Numbers
	tetragonProcess(&ev, e.Process, e.Parent, &num)
	tetragonDispatch(key, &e, &ev, &num)
	if err := num.Err(); err != nil {
		return nil, err
	}
	return []evidence.Event{ev}, nil
}

func tetragonTop(data []byte) (map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := parse.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a tetragon event: %w", err)
	}
	return top, nil
}

// optString reads a string member that may be absent.
func optString(top map[string]json.RawMessage, key string, dst *string) error {
	raw, ok := top[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := parse.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("tetragon %s is not a string", key)
	}
	return nil
}

// tetragonTime is the response time; without one (testdata/events.json
// line 1), the exit time or the process start time, which for an exec is
// the event itself. A fallback is tagged so the timeline can say so.
func tetragonTime(key, top string, e *tgEvent, ev *evidence.Event) (time.Time, error) {
	ts, from := top, ""
	if ts == "" && e.Time != "" {
		ts, from = e.Time, key+".time"
	}
	if ts == "" && e.Process != nil && e.Process.StartTime != "" {
		ts, from = e.Process.StartTime, "process.start_time"
	}
	if ts == "" {
		return time.Time{}, fmt.Errorf("tetragon %s event has no time", key)
	}
	if from != "" {
		ev.Tags = append(ev.Tags, "time:"+from)
	}
	return parse.NonZeroTime(ts)
}

// tetragonProcess fills the identity of the acting process: the keys that
// tie the event to a pod, a container and so to an agent.
func tetragonProcess(ev *evidence.Event, p, parent *tgProcess, num *parse.Numbers) {
	if parent != nil {
		ev.Ppid = num.Pid("parent.pid", parent.Pid)
		ev.ParentExecID = parent.ExecID
		ev.ParentExe = parent.Binary
		if parent.Binary != "" {
			ev.ParentCmdline = strings.TrimSpace(parent.Binary + " " + parent.Arguments)
		}
	}
	if p == nil {
		return
	}
	ev.ExecID, ev.Pid = p.ExecID, num.Pid("process.pid", p.Pid)
	if p.ParentExecID != "" {
		ev.ParentExecID = p.ParentExecID
	}
	ev.Cmdline = strings.TrimSpace(p.Binary + " " + p.Arguments)
	ev.Cwd = p.Cwd
	ev.User = parse.FirstOf(p.User.Name, p.UID.String())
	ev.Pod = parse.PodName(p.Pod.Namespace, p.Pod.Name)
	ev.Container = parse.ContainerID(parse.FirstOf(p.Pod.Container.ID, p.Docker))
	keys := make([]string, 0, len(p.Pod.Labels))
	for k := range p.Pod.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ev.Tags = append(ev.Tags, "label:"+k+"="+p.Pod.Labels[k])
	}
}

// procContext is the "(pod ns/name, pid N)" tail of a message.
func procContext(ev *evidence.Event) string {
	var parts []string
	switch {
	case ev.Pod != "":
		parts = append(parts, "pod "+ev.Pod)
	case ev.Container != "":
		parts = append(parts, "container "+ev.Container)
	}
	if ev.Pid != 0 {
		parts = append(parts, "pid "+strconv.Itoa(ev.Pid))
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
