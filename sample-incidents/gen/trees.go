package main

// Tool calls that start whole process trees (a `make test` that runs pytest
// with workers, jest with workers and `go test` with its compile, link and
// test binaries), and the Go flavor of ordinary work. Busy benign agents
// look like this: hundreds of process executions, all of them ordinary.

import (
	"fmt"
	"strings"
	"time"
)

// tree is a bash tool call whose shell starts a process tree: fn starts the
// processes (any parent, from the shell down) at cur, and returns when the
// last one ended, the exit status and the output excerpt ("": r.excerpt).
func (s *session) tree(t time.Time, cmd string, r res, fn func(sh *proc, cur time.Time, id string) (time.Time, int, string)) (time.Time, string) {
	w := s.w
	id, td := s.call(t, "bash", obj{{"cmd", cmd}}, false, r)
	if r.deny {
		return s.denied(td, id, r), id
	}
	sh := w.spawn(s.sb, s.sb.init, td.Add(w.ms(40, 160)), "/bin/bash", "-lc "+quote(cmd), s.uid, s.cwd)
	end, exit, ex := fn(sh, sh.start.Add(w.ms(2, 8)), id)
	if ex != "" {
		r.excerpt = ex
	}
	w.tetraExit(sh, end.Add(w.ms(1, 5)), exit, "")
	rt := end.Add(w.ms(8, 30))
	status := r.status
	if status == "" {
		status = "ok"
		if exit != 0 {
			status = "error"
		}
	}
	s.result(rt, id, status, r.excerpt)
	return rt, id
}

// leaf runs one process under parent: its requests (through the proxy, or
// loopback connects when q.via is "local"), then its exit. It returns the end.
func (s *session) leaf(parent *proc, t time.Time, id, bin, args string, ms, exit int, net ...req) time.Time {
	w := s.w
	p := w.spawn(s.sb, parent, t, bin, args, s.uid, s.cwd)
	qt := p.start.Add(w.ms(5, 40))
	for _, q := range net {
		if q.via == "local" {
			w.tcpConnect(p, qt, "127.0.0.1", q.port)
			qt = qt.Add(w.ms(2, 300))
			continue
		}
		end := w.request(p, qt, q, s.proxyUser())
		s.netEvent(end, q, id)
		qt = end.Add(w.ms(3, 30))
	}
	stop := p.start.Add(time.Duration(ms) * time.Millisecond)
	if qt.After(stop) {
		stop = qt
	}
	w.tetraExit(p, stop, exit, "")
	return stop
}

func local(port int) req { return req{via: "local", port: port} }

const goTool = "/usr/local/go/pkg/tool/linux_amd64/"

// goTest is `go test` of pkgs: changed packages are compiled, linked and
// run; the others come from the build cache. Test binaries may open loopback
// connections (httptest servers).
func (s *session) goTest(parent *proc, t time.Time, id, module string, pkgs []string, changed, failing int) (time.Time, int, string) {
	w := s.w
	args := "test ./..."
	if len(pkgs) == 1 {
		args = "test ./" + pkgs[0]
	}
	gop := w.spawn(s.sb, parent, t, "/usr/local/go/bin/go", args, s.uid, s.cwd)
	cur := gop.start.Add(w.ms(80, 400))
	work := fmt.Sprintf("/tmp/go-build%d", 100000000+w.rnd.Intn(899999999))
	var out []string
	exit := 0
	for i, pkg := range pkgs {
		ip := module + "/" + pkg
		name := pkg[strings.LastIndex(pkg, "/")+1:]
		if i >= changed {
			out = append(out, "ok "+ip+" (cached)")
			continue
		}
		b := fmt.Sprintf("%s/b%03d", work, 1+i*2)
		cur = s.leaf(gop, cur, id, goTool+"compile", fmt.Sprintf("-o %s/_pkg_.a -trimpath %s=> -p %s -lang=go1.23 -complete -pack ./%s/*.go", b, b, ip, pkg), 300+w.rnd.Intn(2200), 0)
		cur = s.leaf(gop, cur.Add(w.ms(2, 20)), id, goTool+"link", fmt.Sprintf("-o %s/%s.test -buildmode=exe %s/_pkg_.a", b, name, b), 400+w.rnd.Intn(1500), 0)
		var net []req
		for j := w.rnd.Intn(4); j > 0; j-- {
			net = append(net, local(30000+w.rnd.Intn(30000)))
		}
		st := 0
		if i < failing {
			st, exit = 1, 1
		}
		cur = s.leaf(gop, cur.Add(w.ms(2, 20)), id, b+"/"+name+".test", "-test.paniconexit0 -test.timeout=10m0s", 200+w.rnd.Intn(3000), st, net...)
		if st != 0 {
			out = append(out, "FAIL "+ip)
		} else {
			out = append(out, fmt.Sprintf("ok %s %.2fs", ip, 0.1+w.rnd.Float64()*3))
		}
	}
	end := cur.Add(w.ms(20, 200))
	w.tetraExit(gop, end, exit, "")
	return end, exit, strings.Join(out, "; ")
}

// goMod downloads modules through the Go module proxy and checks sums.
func (s *session) goMod(t time.Time, cmd, args string, mods int) time.Time {
	w := s.w
	qs := []req{{method: "CONNECT", host: "proxy.golang.org", port: 443, bytes: mods * (40000 + w.rnd.Intn(900000)), ms: 900 + mods*(80+w.rnd.Intn(300))},
		{method: "CONNECT", host: "sum.golang.org", port: 443, bytes: 9000 + mods*(300+w.rnd.Intn(900)), ms: 300 + w.rnd.Intn(900)}}
	if w.rnd.Intn(3) == 0 {
		qs = append(qs, req{none: true, ms: w.rnd.Intn(20)})
	}
	end, _, _ := s.bash(t, cmd, res{excerpt: fmt.Sprintf("go: downloaded %d modules", mods)},
		step{bin: "/usr/local/go/bin/go", args: args, ms: 2000 + mods*60, net: qs})
	return end
}

func goFlavor(module string, files, pkgs []string) flavor {
	return flavor{
		files: files,
		shells: [][3]string{{"go vet ./...", "/usr/local/go/bin/go", "vet ./..."}, {"gofmt -l .", "/usr/local/go/bin/gofmt", "-l ."},
			{"git status --short", "/usr/bin/git", "status --short"}, {"go version", "/usr/local/go/bin/go", "version"}},
		install: func(s *session, t time.Time) time.Time {
			return s.goMod(t, "go mod download", "mod download", 40+s.w.rnd.Intn(30))
		},
		test: func(s *session, t time.Time, failed int) time.Time {
			end, _ := s.tree(t, "go test ./...", res{}, func(sh *proc, cur time.Time, id string) (time.Time, int, string) {
				return s.goTest(sh, cur, id, module, pkgs, 1+s.w.rnd.Intn(3), failed)
			})
			return end
		},
		fetch: func(s *session, t time.Time) time.Time {
			return s.goMod(t, "go get golang.org/x/exp@latest", "get golang.org/x/exp@latest", 2)
		},
		notes: []string{"Updated the code for the Go 1.23 iterator changes.", "Two packages still fail on the new time formatting.", "All packages build; re-running the tests."},
	}
}
