package main

// Writers for the five evidence formats. Each writer renders one record the
// way the real tool does (key order, time precision, null vs absent) and
// appends it to the scenario's output with the time it sorts by.

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ---- cordon ledger v1 ----

func ledgerTS(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// led writes one ledger record of session s (nil for records about no session).
func (w *world) led(t time.Time, typ string, s *session, callID string, fields ...kv) {
	o := obj{{"v", 1}, {"ts", ledgerTS(t)}, {"type", typ}}
	if s != nil {
		o = append(o, kv{"run", s.run}, kv{"agent", s.agent}, kv{"session", s.id})
	}
	o = o.opt("call_id", callID)
	o = append(o, fields...)
	w.emit("ledger.jsonl", t, marshal(o), who{})
}

// human writes a human_intervention; target may be nil for fleet-wide actions.
func (w *world) human(t time.Time, target *session, actor, action, note string) {
	o := obj{{"v", 1}, {"ts", ledgerTS(t)}, {"type", "human_intervention"}}
	if target != nil {
		o = append(o, kv{"run", target.run}, kv{"agent", target.agent}, kv{"session", target.id})
	}
	o = append(o, kv{"actor", actor}, kv{"action", action})
	o = o.opt("note", note)
	w.emit("ledger.jsonl", t, marshal(o), who{})
}

// ---- Squid native access.log ----

// sq is one native-format line: %ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt.
type sq struct {
	end    time.Time // transaction end: the logged time
	ms     int       // elapsed
	client string
	code   string
	status int
	bytes  int
	method string
	url    string
	user   string
	hier   string
	peer   string
	mime   string
	by     who // who made the request (ground truth)
}

func (w *world) squid(x sq) {
	u := x.end.UTC()
	line := fmt.Sprintf("%d.%03d %6d %s %s/%03d %d %s %s %s %s/%s %s",
		u.Unix(), u.Nanosecond()/1e6, x.ms, x.client, x.code, x.status, x.bytes,
		dash(x.method), x.url, dash(x.user), x.hier, dash(x.peer), dash(x.mime))
	by := x.by
	by.cred = x.user
	w.emit("proxy/access.log", u, line, by)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ---- Falco JSON alerts ----

type falcoRule struct {
	name, prio, msg, form string
	tags                  []string
}

var (
	ruleReadSensitive = falcoRule{"Read sensitive file untrusted", "Warning", "Sensitive file opened for reading by non-trusted program", "file",
		[]string{"T1555", "container", "filesystem", "host", "maturity_stable", "mitre_credential_access"}}
	ruleTerminalShell = falcoRule{"Terminal shell in container", "Notice", "A shell was spawned in a container with an attached terminal", "exec",
		[]string{"T1059", "container", "maturity_stable", "mitre_execution", "shell"}}
	ruleCloudMetadata = falcoRule{"Contact cloud metadata service from container", "Notice", "Outbound connection to cloud instance metadata service", "net",
		[]string{"T1565", "container", "maturity_incubating", "mitre_discovery", "network"}}
	ruleEC2Metadata = falcoRule{"Contact EC2 Instance Metadata Service From Container", "Notice", "Outbound connection to EC2 instance metadata service", "net",
		[]string{"T1552.005", "aws", "container", "maturity_incubating", "mitre_credential_access", "network"}}
	ruleCron = falcoRule{"Schedule Cron Jobs", "Notice", "Cron jobs were scheduled to run", "cron",
		[]string{"T1053.003", "container", "filesystem", "host", "maturity_incubating", "mitre_execution"}}
	ruleNetTool = falcoRule{"Launch Suspicious Network Tool in Container", "Notice", "Network tool launched in container", "exec",
		[]string{"T1059", "container", "maturity_incubating", "mitre_execution", "network", "process"}}
	rulePkgMgmt = falcoRule{"Launch Package Management Process in Container", "Error", "Package management process launched in container", "exec",
		[]string{"T1505", "container", "maturity_incubating", "mitre_persistence", "process", "software_mgmt"}}
)

// falco writes one alert about process p. fd is the file path or the socket
// tuple "sip:sport->dip:dport" ("" when the rule has none).
func (w *world) falco(t time.Time, r falcoRule, p *proc, fd string, lport, rport int) {
	sb := p.sb
	f := map[string]any{
		"evt.time": t.UnixNano(), "proc.pid": p.pid, "proc.ppid": p.ppid(),
		"user.name": p.user(), "user.uid": p.uid, "user.loginuid": -1,
		"proc.name": p.comm(), "proc.exepath": p.binary, "proc.pname": p.pname(),
		"proc.cmdline": p.cmdline(), "proc.tty": p.tty,
		"container.id": sb.container[:12], "container.name": sb.cname,
		"container.image.repository": sb.repo, "container.image.tag": sb.tag,
		"k8s.pod.name": sb.pod, "k8s.ns.name": sb.ns,
	}
	var head []string
	switch r.form {
	case "file":
		f["evt.type"] = "openat"
		f["fd.name"] = fd
		for i := 2; i <= 4; i++ {
			f[fmt.Sprintf("proc.aname[%d]", i)] = p.aname(i)
		}
		head = []string{"file=fd.name", "gparent=proc.aname[2]", "ggparent=proc.aname[3]", "gggparent=proc.aname[4]"}
	case "net":
		f["evt.type"] = "connect"
		f["fd.name"] = fd
		f["fd.lport"], f["fd.rport"] = lport, rport
		f["fd.type"], f["fd.l4proto"] = "ipv4", "tcp"
		f["evt.arg.flags"] = nil
		head = []string{"connection=fd.name", "lport=fd.lport", "rport=fd.rport", "fd_type=fd.type", "fd_proto=fd.l4proto"}
	case "cron":
		// spawned_process and proc.name = "crontab": no file descriptor.
		f["fd.name"] = nil
		head = []string{"file=fd.name"}
		fallthrough
	case "exec":
		f["evt.type"] = "execve"
		f["evt.arg.flags"] = "EXE_WRITABLE|EXE_LOWER_LAYER"
	}
	tail := []string{"evt_type=evt.type", "user=user.name", "user_uid=user.uid", "user_loginuid=user.loginuid",
		"process=proc.name", "proc_exepath=proc.exepath", "parent=proc.pname", "command=proc.cmdline", "terminal=proc.tty"}
	if r.form != "file" {
		tail = append(tail, "exe_flags=evt.arg.flags")
	}
	appendOut := []string{"container_id=container.id", "container_name=container.name",
		"container_image_repository=container.image.repository", "container_image_tag=container.image.tag",
		"k8s_pod_name=k8s.pod.name", "k8s_ns_name=k8s.ns.name"}
	var parts []string
	for _, spec := range append(append(head, tail...), appendOut...) {
		name, field, _ := strings.Cut(spec, "=")
		parts = append(parts, name+"="+falcoText(f[field]))
	}
	u := t.UTC()
	out := fmt.Sprintf("%s: %s %s | %s", u.Format("15:04:05.000000000"), r.prio, r.msg, strings.Join(parts, " "))
	o := obj{{"hostname", sb.node.falco}, {"output", out}, {"output_fields", f}, {"priority", r.prio},
		{"rule", r.name}, {"source", "syscall"}, {"tags", r.tags}, {"time", u.Format("2006-01-02T15:04:05.000000000Z")}}
	w.emit("sensor/falco.jsonl", u, marshal(o), procWho(p, viaContainer))
}

func falcoText(v any) string {
	switch x := v.(type) {
	case nil:
		return "<NA>"
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}

// ---- Tetragon JSON export ----

// protoTime renders a timestamp as protojson does: Z, and 0, 3, 6 or 9 digits.
func protoTime(t time.Time) string {
	u := t.UTC()
	ns := u.Nanosecond()
	base := u.Format("2006-01-02T15:04:05")
	switch {
	case ns == 0:
		return base + "Z"
	case ns%1e6 == 0:
		return fmt.Sprintf("%s.%03dZ", base, ns/1e6)
	case ns%1e3 == 0:
		return fmt.Sprintf("%s.%06dZ", base, ns/1e3)
	}
	return fmt.Sprintf("%s.%09dZ", base, ns)
}

func execID(node string, ktime int64, pid int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%s:%d:%d", node, ktime, pid)))
}

func (p *proc) tetra(exec bool) obj {
	o := obj{{"exec_id", p.execID}, {"pid", p.pid}, {"uid", p.uid}, {"cwd", p.cwd}, {"binary", p.binary}}
	o = o.opt("arguments", p.args)
	flags := "execve"
	if p.cwd == "/" {
		flags += " rootcwd"
	}
	if !p.noClone {
		flags += " clone"
	}
	o = append(o, kv{"flags", flags}, kv{"start_time", protoTime(p.start)}, kv{"auid", uint32(4294967295)})
	if sb := p.sb; sb != nil {
		c := obj{{"id", "containerd://" + sb.container}, {"name", sb.cname},
			{"image", obj{{"id", sb.repo + "@sha256:" + sb.imageDigest}, {"name", sb.repo + ":" + sb.tag}}},
			{"start_time", protoTime(sb.start.Truncate(time.Second))}, {"pid", p.vpid}}
		o = append(o, kv{"pod", obj{{"namespace", sb.ns}, {"name", sb.pod}, {"container", c},
			{"pod_labels", sb.labels}, {"workload", sb.pod}, {"workload_kind", "Pod"}}},
			kv{"docker", sb.container[:31]})
	}
	o = o.opt("parent_exec_id", p.parentExecID())
	if exec {
		o = append(o, kv{"refcnt", 1})
	}
	return append(o, kv{"tid", p.pid})
}

// tetraEmit writes one event about process p.
func (w *world) tetraEmit(t time.Time, kind string, body obj, p *proc) {
	w.emit("sensor/tetragon.jsonl", t, marshal(obj{{kind, body}, {"node_name", p.node().name}, {"time", protoTime(t)}}), procWho(p, viaContainer))
}

func (w *world) tetraExec(p *proc) {
	body := obj{{"process", p.tetra(true)}}
	if p.parent != nil {
		body = append(body, kv{"parent", p.parent.tetra(false)})
	}
	w.tetraEmit(p.start, "process_exec", body, p)
}

func (w *world) tetraExit(p *proc, t time.Time, status int, signal string) {
	body := obj{{"process", p.tetra(false)}}
	if p.parent != nil {
		body = append(body, kv{"parent", p.parent.tetra(false)})
	}
	body = body.opt("signal", signal).opt("status", status)
	body = append(body, kv{"time", protoTime(t)})
	w.tetraEmit(t, "process_exit", body, p)
}

func (w *world) kprobe(p *proc, t time.Time, fn, policy string, args []obj) {
	body := obj{{"process", p.tetra(false)}}
	if p.parent != nil {
		body = append(body, kv{"parent", p.parent.tetra(false)})
	}
	body = append(body, kv{"function_name", fn}, kv{"args", args})
	if fn == "security_file_permission" {
		body = append(body, kv{"return", obj{{"int_arg", 0}}})
	}
	body = append(body, kv{"action", "KPROBE_ACTION_POST"}, kv{"policy_name", policy}, kv{"return_action", "KPROBE_ACTION_POST"})
	w.tetraEmit(t, "process_kprobe", body, p)
}

// tcpConnect records a tcp_connect kprobe and returns the source port used.
func (w *world) tcpConnect(p *proc, t time.Time, daddr string, dport int) int {
	sport := 32768 + w.rnd.Intn(28000)
	sock := obj{{"family", "AF_INET"}, {"type", "SOCK_STREAM"}, {"protocol", "IPPROTO_TCP"},
		{"saddr", p.sb.ip}, {"daddr", daddr}, {"sport", sport}, {"dport", dport},
		{"cookie", strconv.FormatUint(uint64(w.rnd.Int63()), 10)}, {"state", "TCP_SYN_SENT"}}
	w.kprobe(p, t, "tcp_connect", "egress-connect", []obj{{{"sock_arg", sock}}})
	return sport
}

// fileAccess records security_file_permission; mask 4 = MAY_READ, 2 = MAY_WRITE.
func (w *world) fileAccess(p *proc, t time.Time, path string, mask int, perm string) {
	w.kprobe(p, t, "security_file_permission", "sensitive-files",
		[]obj{{{"file_arg", obj{{"path", path}, {"permission", perm}}}}, {{"int_arg", mask}}})
}

// ---- Envoy Gateway JSON access log (default field set) ----

type envoyReq struct {
	start               time.Time
	method, path, ua    string
	authority, upstream string
	status, recv, sent  int
	dur, svc            int
	client              string
	cport               int
	flags, details      string
	by                  who
}

func (w *world) envoy(e envoyReq) {
	route := "httproute/egress/github-api/rule/0/match/0/" + strings.ReplaceAll(e.authority, ".", "_")
	var upHost, upCluster, upLocal, svc any
	if e.upstream != "" {
		upHost, upCluster = e.upstream+":443", "httproute/egress/github-api/rule/0"
		upLocal = fmt.Sprintf("10.0.1.40:%d", 40000+w.rnd.Intn(20000))
		svc = strconv.Itoa(e.svc)
	}
	m := map[string]any{
		":authority": e.authority, "bytes_received": e.recv, "bytes_sent": e.sent,
		"connection_termination_details": nil, "downstream_local_address": "10.0.1.40:10443",
		"downstream_remote_address": fmt.Sprintf("%s:%d", e.client, e.cport), "duration": e.dur,
		"method": e.method, "protocol": "HTTP/1.1", "requested_server_name": e.authority,
		"response_code": e.status, "response_code_details": e.details, "response_flags": e.flags,
		"route_name": route, "start_time": e.start.UTC().Format("2006-01-02T15:04:05.000Z"),
		"upstream_cluster": upCluster, "upstream_host": upHost, "upstream_local_address": upLocal,
		"upstream_transport_failure_reason": nil, "user-agent": e.ua, "x-envoy-origin-path": e.path,
		"x-envoy-upstream-service-time": svc, "x-forwarded-for": e.client, "x-request-id": w.uuid(),
	}
	// Envoy writes the line when the stream ends; start_time is the request start.
	w.emit("proxy/envoy.jsonl", e.start.Add(time.Duration(e.dur)*time.Millisecond), marshal(m), e.by)
}
