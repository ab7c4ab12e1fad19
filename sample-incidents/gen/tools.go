package main

// Agent tool calls: what the tool gateway writes (tool_call, policy_decision,
// tool_result, net_event, file_write) and what the sandbox does as a result
// (processes, connections, sensitive file accesses, Falco alerts).

import (
	"fmt"
	"strings"
	"time"
)

// res is how the gateway decided and how the call ended.
type res struct {
	deny                   bool
	policy, reason, target string
	status, excerpt        string
	retryOf                string
}

// step is one process the tool call's shell starts.
type step struct {
	bin, args string
	ms        int // run time
	exit      int
	gap       int // pause before it starts (ms)
	net       []req
	reads     []string // sensitive files read (Tetragon policy sensitive-files, Falco)
	writes    []string // sensitive files written (Tetragon)
	rules     []falcoRule
	bg        bool // detached (nohup ... &): keeps running after the call
}

// ms is a random duration of lo..hi milliseconds, with nanoseconds: kernel
// and sensor timestamps are never round.
func (w *world) ms(lo, hi int) time.Duration {
	return time.Duration(lo+w.rnd.Intn(hi-lo+1))*time.Millisecond + time.Duration(w.rnd.Intn(1e6))
}

// next advances past the model's think time; most turns start with a prompt.
func (s *session) next(t time.Time, loS, hiS int) time.Time {
	pt := t.Add(s.w.ms(40, 400))
	if s.w.rnd.Intn(10) < 6 {
		s.prompt(pt, 300+s.w.rnd.Intn(2400), "")
	}
	return pt.Add(s.w.ms(loS*1000, hiS*1000))
}

func (s *session) call(t time.Time, tool string, args obj, readOnly bool, r res) (string, time.Time) {
	w := s.w
	w.callN++
	id := fmt.Sprintf("c-%d", w.callN)
	fields := []kv{{"tool", tool}, {"args", args}}
	if r.retryOf != "" {
		fields = append(fields, kv{"retry_of", r.retryOf})
	}
	fields = append(fields, kv{"read_only", readOnly})
	w.led(t, "tool_call", s, id, fields...)
	td := t.Add(w.ms(6, 18))
	dec, pol, why := "allow", r.policy, r.reason
	if r.deny {
		dec = "deny"
	}
	if pol == "" {
		pol = map[string]string{"bash": "bash.default-allow", "read_file": "files.default-allow", "write_file": "files.workdir-write"}[tool]
		if pol == "" {
			pol = "tools." + strings.ReplaceAll(tool, "_", "-") + ".allow"
		}
	}
	if why == "" {
		why = "tool in tools_allowed"
	}
	d := []kv{{"decision", dec}, {"policy", pol}, {"reason", why}}
	if r.target != "" {
		d = append(d, kv{"target", r.target})
	}
	w.led(td, "policy_decision", s, id, d...)
	return id, td
}

func (s *session) result(t time.Time, id, status, excerpt string) {
	f := []kv{{"status", status}}
	if excerpt != "" {
		f = append(f, kv{"output_excerpt", excerpt})
	}
	f = append(f, kv{"output_digest", "sha256:" + s.w.digest(id+status+excerpt)})
	s.w.led(t, "tool_result", s, id, f...)
}

func (s *session) denied(td time.Time, id string, r res) time.Time {
	t := td.Add(s.w.ms(2, 9))
	ex := r.excerpt
	if ex == "" {
		ex = "blocked by policy " + r.policy
	}
	s.result(t, id, "denied", ex)
	return t
}

// bash runs cmd in the sandbox as a tool call. It returns when the result is
// written, the call id, and any processes left running in the background.
func (s *session) bash(t time.Time, cmd string, r res, steps ...step) (time.Time, string, []*proc) {
	w := s.w
	id, td := s.call(t, "bash", obj{{"cmd", cmd}}, false, r)
	if r.deny {
		return s.denied(td, id, r), id, nil
	}
	sh := w.spawn(s.sb, s.sb.init, td.Add(w.ms(40, 160)), "/bin/bash", "-lc "+quote(cmd), s.uid, s.cwd)
	cur := sh.start.Add(w.ms(2, 8))
	exit := 0
	var bg []*proc
	for _, st := range steps {
		cur = cur.Add(time.Duration(st.gap) * time.Millisecond)
		p := w.spawn(s.sb, sh, cur, st.bin, st.args, s.uid, s.cwd)
		for _, rule := range st.rules {
			w.falco(p.start.Add(time.Duration(20+w.rnd.Intn(300))*time.Microsecond), rule, p, "", 0, 0)
		}
		ft := p.start.Add(w.ms(1, 4))
		for _, f := range st.reads {
			w.fileAccess(p, ft, f, 4, "-rw-------")
			w.falco(ft.Add(time.Duration(15+w.rnd.Intn(90))*time.Microsecond), ruleReadSensitive, p, f, 0, 0)
			ft = ft.Add(w.ms(1, 6))
		}
		for _, f := range st.writes {
			w.fileAccess(p, ft, f, 2, "-rw-------")
			ft = ft.Add(w.ms(1, 6))
		}
		qt := ft.Add(w.ms(5, 40))
		for _, q := range st.net {
			qt = qt.Add(time.Duration(q.wait) * time.Millisecond)
			end := w.request(p, qt, q, s.proxyUser())
			s.netEvent(end, q, id)
			qt = end.Add(w.ms(3, 30))
		}
		stop := p.start.Add(time.Duration(st.ms) * time.Millisecond)
		if qt.After(stop) {
			stop = qt
		}
		if st.bg {
			bg = append(bg, p)
			cur = p.start.Add(w.ms(2, 6))
			continue
		}
		w.tetraExit(p, stop, st.exit, "")
		exit = st.exit
		cur = stop.Add(w.ms(1, 5))
	}
	w.tetraExit(sh, cur, exit, "")
	end := cur.Add(w.ms(8, 30))
	status := r.status
	if status == "" {
		status = "ok"
		if exit != 0 {
			status = "error"
		}
	}
	s.result(end, id, status, r.excerpt)
	return end, id, bg
}

// netEvent is the harness's per-connection accounting for an allowed request.
func (s *session) netEvent(end time.Time, q req, callID string) {
	if q.deny || q.none || q.unreach || q.via == "direct" || q.code == "TCP_TUNNEL_ABORTED" && q.out == 0 {
		return
	}
	proto := "https"
	if q.method != "CONNECT" && q.via != "envoy" {
		proto = "http"
	}
	out := q.out
	if out == 0 {
		out = int64(520 + s.w.rnd.Intn(2600))
	}
	port := q.port
	switch {
	case q.via == "envoy":
		port = 443
	case port == 0:
		port = 80
	}
	s.w.led(end.Add(s.w.ms(1, 12)), "net_event", s, callID, kv{"direction", "egress"}, kv{"dst_host", q.host},
		kv{"dst_ip", hostIP(q.host)}, kv{"dst_port", port}, kv{"protocol", proto}, kv{"bytes_out", out}, kv{"bytes_in", q.bytes})
}

func quote(s string) string {
	if strings.ContainsAny(s, " \t") {
		return `"` + s + `"`
	}
	return s
}

// sensitive reports whether the Tetragon policy sensitive-files watches path:
// the paths every deployment lists (or the ones a node's policy lists
// instead), and the file names a deployment adds.
func (w *world) sensitive(path string) bool {
	watched := w.watched
	if watched == nil {
		watched = []string{"/run/secrets/", "/home/agent/.aws/", "/home/agent/.config/gh/", "/home/agent/.netrc",
			"/var/spool/cron/", "/home/agent/.config/systemd/", "/etc/shadow"}
	}
	for _, p := range watched {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	for _, n := range w.sensitiveNames {
		if strings.HasSuffix(path, "/"+n) {
			return true
		}
	}
	return false
}

// agentdTrusted reports whether Falco's exception for sandbox-agentd covers
// a read of path: everywhere, unless the deployment scopes it to prefixes.
func (w *world) agentdTrusted(path string) bool {
	if w.agentdScope == nil {
		return true
	}
	for _, p := range w.agentdScope {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// readFile is the read_file tool: the sandbox daemon reads the file itself.
func (s *session) readFile(t time.Time, path string, r res) (time.Time, string) {
	id, td := s.call(t, "read_file", obj{{"path", path}}, true, r)
	if r.deny {
		return s.denied(td, id, r), id
	}
	if s.w.sensitive(path) {
		ft := td.Add(s.w.ms(3, 12))
		s.w.fileAccess(s.sb.init, ft, path, 4, "-rw-------")
		if !s.w.agentdTrusted(path) {
			s.w.falco(ft.Add(time.Duration(15+s.w.rnd.Intn(90))*time.Microsecond), ruleReadSensitive, s.sb.init, path, 0, 0)
		}
	}
	end := td.Add(s.w.ms(15, 90))
	status := r.status
	if status == "" {
		status = "ok"
	}
	s.result(end, id, status, r.excerpt)
	return end, id
}

// writeFile is the write_file tool; the ledger also records the file_write.
func (s *session) writeFile(t time.Time, path string, size int, mode string, r res) (time.Time, string) {
	id, td := s.call(t, "write_file", obj{{"path", path}, {"bytes", size}}, false, r)
	if r.deny {
		return s.denied(td, id, r), id
	}
	wt := td.Add(s.w.ms(4, 20))
	if s.w.sensitive(path) {
		s.w.fileAccess(s.sb.init, wt, path, 2, "-rw-r--r--")
	}
	f := []kv{{"path", path}, {"bytes", size}}
	if mode != "" {
		f = append(f, kv{"mode", mode})
	}
	s.w.led(wt.Add(s.w.ms(1, 4)), "file_write", s, id, f...)
	end := wt.Add(s.w.ms(8, 30))
	s.result(end, id, "ok", fmt.Sprintf("wrote %d bytes to %s", size, path))
	return end, id
}

// tool is any other gateway tool (no sandbox process).
func (s *session) tool(t time.Time, name string, args obj, readOnly bool, ms int, r res) (time.Time, string) {
	id, td := s.call(t, name, args, readOnly, r)
	if r.deny {
		return s.denied(td, id, r), id
	}
	end := td.Add(time.Duration(ms) * time.Millisecond)
	status := r.status
	if status == "" {
		status = "ok"
	}
	s.result(end, id, status, r.excerpt)
	return end, id
}

// at is the fixed time of a scripted call, most of the time preceded by the
// prompt that led to it.
func (s *session) at(hms string) time.Time {
	t := s.w.at(hms).Add(s.w.ms(0, 900))
	if s.w.rnd.Intn(10) < 6 {
		s.prompt(t.Add(-s.w.ms(1500, 7000)), 300+s.w.rnd.Intn(1800), "")
	}
	return t
}
