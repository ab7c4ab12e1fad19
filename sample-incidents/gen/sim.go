package main

// The simulated world: nodes, sandboxes (pods), processes and agent sessions,
// and the primitives that turn one agent action into consistent records in
// every source (ledger tool call -> Tetragon exec/connect -> Squid line).

import (
	"fmt"
	"hash/fnv"
	"net"
	"path"
	"strings"
	"time"
)

const (
	proxyIP = "10.96.40.12" // egress-proxy.egress.svc (Squid), port 3128
	envoyIP = "10.96.52.20" // egress gateway service (Envoy Gateway), port 443
)

type node struct {
	name, falco string
	boot        time.Time
	pid         int
	systemd     *proc
}

type sandbox struct {
	id, pod, ns, cname     string
	container              string // 64 hex
	ip                     string
	node                   *node
	repo, tag, imageDigest string
	start                  time.Time
	labels                 map[string]string
	vpid                   int
	init                   *proc    // sandbox-agentd, PID 1 in the container
	owner                  *session // the one session the sandbox was made for
}

type proc struct {
	execID            string
	pid, vpid, uid    int
	tty               int
	cwd, binary, args string
	start             time.Time
	sb                *sandbox
	nd                *node
	parent            *proc
	noClone           bool   // exec'd over its parent image (no fork)
	actor             string // a person, not the agent, started it (inherited)
}

func (p *proc) node() *node {
	if p.sb != nil {
		return p.sb.node
	}
	return p.nd
}

// comm is the kernel task name Falco shows as proc.name (15 bytes at most).
func (p *proc) comm() string {
	c := path.Base(p.binary)
	if len(c) > 15 {
		c = c[:15]
	}
	return c
}

func (p *proc) cmdline() string {
	if p.args == "" {
		return p.comm()
	}
	return p.comm() + " " + strings.ReplaceAll(p.args, `"`, "")
}

func (p *proc) user() string {
	if p.uid == 0 {
		return "root"
	}
	return "agent"
}

func (p *proc) pname() any {
	if p.parent == nil {
		return nil
	}
	return p.parent.comm()
}

func (p *proc) ppid() any {
	if p.parent == nil {
		return nil
	}
	return p.parent.pid
}

func (p *proc) aname(n int) any {
	a := p
	for i := 0; i < n && a != nil; i++ {
		a = a.parent
	}
	if a == nil {
		return nil
	}
	return a.comm()
}

func (p *proc) parentExecID() string {
	if p.parent == nil {
		return ""
	}
	return p.parent.execID
}

func newNode(w *world, name, falco string, boot time.Time) *node {
	n := &node{name: name, falco: falco, boot: boot, pid: 180000 + w.rnd.Intn(20000)}
	n.systemd = &proc{pid: 1, uid: 0, cwd: "/", binary: "/usr/lib/systemd/systemd", args: "--switched-root --system --deserialize=31",
		start: boot.Add(2 * time.Second), nd: n}
	n.systemd.execID = execID(name, 2_000_000_000, 1)
	return n
}

// image is an OCI image of a sandbox: repository, tag, digest.
type image struct{ repo, tag, digest string }

// newSandbox starts a sandbox pod; cid is the full 64-hex container id or its
// first 12 hex (the rest is generated).
func newSandbox(w *world, n *node, id, ip, cid string, start time.Time, img image, run string) *sandbox {
	cid += w.hex(64 - len(cid))
	sb := &sandbox{id: id, pod: "sandbox-" + id, ns: "agent-evals", cname: "sandbox", container: cid, ip: ip, node: n,
		repo: img.repo, tag: img.tag, imageDigest: img.digest, start: start, vpid: 1,
		labels: map[string]string{"app.kubernetes.io/name": "eval-sandbox", "eval.acme.dev/run": run, "eval.acme.dev/sandbox": id}}
	shim := w.hostProc(n, start.Add(-1200*time.Millisecond), "/usr/bin/containerd-shim-runc-v2",
		"-namespace k8s.io -id "+w.hex(64)+" -address /run/containerd/containerd.sock")
	shim.cwd = "/run/containerd/io.containerd.runtime.v2.task/k8s.io/" + cid
	sb.init = &proc{pid: n.nextPID(w), vpid: 1, uid: 1000, cwd: "/", binary: "/usr/local/bin/sandbox-agentd",
		args: "--listen unix:///run/agentd.sock --workdir /work", start: start, sb: sb, parent: shim}
	sb.init.execID = execID(n.name, start.Sub(n.boot).Nanoseconds(), sb.init.pid)
	w.tetraExec(sb.init)
	return sb
}

func (n *node) nextPID(w *world) int {
	n.pid += 1 + w.rnd.Intn(24)
	return n.pid
}

func (w *world) hostProc(n *node, t time.Time, bin, args string) *proc {
	p := &proc{pid: n.nextPID(w), uid: 0, cwd: "/", binary: bin, args: args, start: t, nd: n, parent: n.systemd}
	p.execID = execID(n.name, t.Sub(n.boot).Nanoseconds(), p.pid)
	return p
}

// spawn starts a process in a sandbox and records its process_exec.
func (w *world) spawn(sb *sandbox, parent *proc, t time.Time, bin, args string, uid int, cwd string) *proc {
	n := sb.node
	sb.vpid += 1 + w.rnd.Intn(3)
	p := &proc{pid: n.nextPID(w), vpid: sb.vpid, uid: uid, cwd: cwd, binary: bin, args: args, start: t, sb: sb, parent: parent, actor: parent.actor}
	p.execID = execID(n.name, t.Sub(n.boot).Nanoseconds(), p.pid)
	w.tetraExec(p)
	return p
}

// req is one network request made by a process.
type req struct {
	via          string // "" (Squid proxy), "direct" (no proxy: connect only), "envoy"
	method, host string
	port         int
	path         string
	deny, none   bool   // Squid ACL denial; client gave up before headers
	code         string // Squid result code override (e.g. TCP_TUNNEL_ABORTED)
	status       int    // HTTP status override
	bytes        int    // bytes to the client (%<st; Envoy bytes_sent)
	out          int64  // bytes uploaded (ledger net_event bytes_out; Envoy bytes_received)
	ms           int    // elapsed
	user         string // proxy-auth user override
	mime, ua     string
	alerts       []falcoRule // Falco network rules that fire on the connect
	unreach      bool        // Squid could not reach the upstream: TCP_TUNNEL/503, HIER_NONE
	wait         int         // client back-off before this request (ms)
	by           who         // who made it; request() sets it from the process
}

func (q req) url() string {
	if q.method == "CONNECT" {
		return fmt.Sprintf("%s:%d", q.host, q.port)
	}
	hp := q.host
	if q.port != 0 && q.port != 80 {
		hp = fmt.Sprintf("%s:%d", q.host, q.port)
	}
	return "http://" + hp + q.path
}

var knownIPs = map[string]string{
	"pypi.org": "151.101.0.223", "files.pythonhosted.org": "151.101.64.223", "github.com": "140.82.112.3",
	"codeload.github.com": "140.82.112.10", "api.github.com": "140.82.112.6", "objects.githubusercontent.com": "185.199.108.133",
	"registry.npmjs.org": "104.16.27.34", "deb.debian.org": "151.101.2.132", "hooks.slack.com": "34.226.36.130",
	"acme-eval-fixtures.s3.amazonaws.com": "52.217.139.41", "acme-ci-scratch.s3.amazonaws.com": "52.216.171.3",
	"data.acme-eval.net": "198.51.100.24", "transfer.sh": "144.76.136.153", "fixtures.acme-eval.net": "198.51.100.31",
}

// hostIP resolves a host to its upstream address (stable per host).
func hostIP(host string) string {
	if net.ParseIP(host) != nil {
		return host
	}
	if ip, ok := knownIPs[host]; ok {
		return ip
	}
	h := fnv.New32a()
	h.Write([]byte(host))
	v := h.Sum32()
	return fmt.Sprintf("%d.%d.%d.%d", 23+v%150, (v>>8)%256, (v>>16)%256, 1+(v>>24)%250)
}

// proxyLine writes the Squid line for q sent at t from client; returns its end.
func (w *world) proxyLine(t time.Time, client, user string, q req) time.Time {
	if q.user != "" {
		user = q.user
	}
	x := sq{client: client, user: user, method: q.method, url: q.url(), ms: q.ms, bytes: q.bytes, status: q.status, code: q.code, by: q.by}
	switch {
	case q.none:
		x = sq{client: client, code: "NONE_NONE", url: "error:transaction-end-before-headers", hier: "HIER_NONE", ms: q.ms, by: q.by}
	case q.unreach:
		x.code, x.status, x.hier, x.bytes = "TCP_TUNNEL", 503, "HIER_NONE", 0
	case q.deny:
		x.code, x.status, x.hier, x.mime = "TCP_DENIED", 403, "HIER_NONE", "text/html"
		if x.ms == 0 {
			x.ms = w.rnd.Intn(3)
		}
		x.bytes = 3846 + len(x.url) + w.rnd.Intn(40)
		if q.status != 0 {
			x.status = q.status
		}
	default:
		x.hier, x.peer = "HIER_DIRECT", hostIP(q.host)
		if x.code == "" {
			x.code = "TCP_TUNNEL"
			if q.method != "CONNECT" {
				x.code = "TCP_MISS"
			}
		}
		if x.status == 0 {
			x.status = 200
		}
		if q.method != "CONNECT" {
			x.mime = q.mime
		}
	}
	x.end = t.Add(time.Duration(x.ms) * time.Millisecond)
	w.squid(x)
	return x.end
}

// request performs q from process p (connect, then the proxy or gateway line).
func (w *world) request(p *proc, t time.Time, q req, user string) time.Time {
	if !q.by.set {
		q.by = procWho(p, viaIP)
	}
	switch q.via {
	case "direct":
		ip := hostIP(q.host)
		sport := w.tcpConnect(p, t, ip, q.port)
		for _, r := range q.alerts {
			w.falco(t.Add(27*time.Microsecond), r, p, fmt.Sprintf("%s:%d->%s:%d", p.sb.ip, sport, ip, q.port), sport, q.port)
		}
		return t.Add(time.Duration(q.ms) * time.Millisecond)
	case "envoy":
		sport := w.tcpConnect(p, t, envoyIP, 443)
		start := t.Add(time.Duration(2+w.rnd.Intn(6)) * time.Millisecond)
		details, flags, up := "via_upstream", "-", hostIP(q.host)
		w.envoy(envoyReq{start: start, method: q.method, path: q.path, ua: q.ua, authority: q.host, upstream: up,
			status: q.status, recv: int(q.out), sent: q.bytes, dur: q.ms, svc: q.ms - 3 - w.rnd.Intn(4),
			client: p.sb.ip, cport: sport, flags: flags, details: details, by: q.by})
		return start.Add(time.Duration(q.ms) * time.Millisecond)
	}
	w.tcpConnect(p, t, proxyIP, 3128)
	return w.proxyLine(t.Add(time.Duration(1+w.rnd.Intn(4))*time.Millisecond), p.sb.ip, user, q)
}

type cred struct{ id, kind, scope string }

// session is one agent session bound to a sandbox.
type session struct {
	w                                *world
	run, agent, id, model, objective string
	sb                               *sandbox
	creds                            []cred
	tools, allow                     []string
	uid                              int
	cwd                              string
	tokens                           int
	lastPrompt                       time.Time
	installed                        []string // extra packages installed so far
	notes                            int      // progress notes written so far
	startAt, endAt                   time.Time
	endReason                        string
}

func (s *session) proxyUser() string {
	for _, c := range s.creds {
		if c.kind == "proxy-auth" {
			return c.id
		}
	}
	return ""
}

func (s *session) start(t time.Time) {
	if s.sb.owner != nil {
		panic("sandbox " + s.sb.id + " already has a session")
	}
	s.sb.owner, s.startAt = s, t
	s.w.sessions = append(s.w.sessions, s)
	var cs []obj
	for _, c := range s.creds {
		cs = append(cs, obj{{"id", c.id}, {"kind", c.kind}, {"scope", c.scope}})
	}
	sb := obj{{"id", s.sb.id}, {"container_id", s.sb.container[:12]}, {"ip", s.sb.ip}, {"host", s.sb.node.name}}.opt("egress_ip", s.w.egressIP)
	s.w.led(t, "session_start", s, "", kv{"model", s.model}, kv{"objective", s.objective}, kv{"sandbox", sb},
		kv{"credentials", cs}, kv{"tools_allowed", s.tools}, kv{"egress_allowlist", s.allow})
	s.tokens = 1800 + s.w.rnd.Intn(900)
	s.prompt(t.Add(time.Duration(300+s.w.rnd.Intn(400))*time.Millisecond), 0, "Objective: "+s.objective)
}

// end closes the session; a completed session's sandbox is torn down.
func (s *session) end(t time.Time, reason string) {
	s.endAt, s.endReason = t, reason
	s.w.led(t, "session_end", s, "", kv{"reason", reason})
	if reason == "completed" {
		s.w.tetraExit(s.sb.init, t.Add(s.w.ms(1500, 4000)), 0, "SIGTERM")
	}
}

func (s *session) prompt(t time.Time, add int, excerpt string) {
	if excerpt == "" && t.Sub(s.lastPrompt) < 3*time.Second {
		return // the same turn
	}
	s.lastPrompt = t
	s.tokens += add
	d := s.w.digest(fmt.Sprintf("%s/%s/%d/%d", s.id, excerpt, s.tokens, t.UnixNano()))
	o := []kv{{"packet_digest", "sha256:" + d}, {"tokens", s.tokens}}
	if excerpt != "" {
		o = append(o, kv{"excerpt", excerpt})
	}
	s.w.led(t, "prompt", s, "", o...)
}

// finish writes the closing summary and ends the session a little later.
func (s *session) finish(t time.Time, text string) {
	s.summary(t, text)
	s.end(t.Add(s.w.ms(3000, 12000)), "completed")
}

func (s *session) summary(t time.Time, text string) {
	s.w.led(t, "summary", s, "", kv{"text", text})
}
