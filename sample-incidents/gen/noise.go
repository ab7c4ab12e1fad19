package main

// Ordinary agent work: package installs, test runs, clones of allowed hosts,
// reading and editing files. Benign agents do only this; the agents under
// suspicion do it too before (and between) the incident's actions.

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"
)

func (s *session) local(t time.Time, cmd, bin, args string, ms, exit int, excerpt string) time.Time {
	end, _, _ := s.bash(t, cmd, res{excerpt: excerpt}, step{bin: bin, args: args, ms: ms, exit: exit})
	return end
}

// pip installs pkgs through the proxy: one tunnel to the index, one to the files host.
func (s *session) pip(t time.Time, pkgs []string, extra ...req) time.Time {
	w := s.w
	n := len(pkgs)
	qs := []req{{method: "CONNECT", host: "pypi.org", port: 443, bytes: 9000 + n*(12000+w.rnd.Intn(30000)), ms: 700 + n*(150+w.rnd.Intn(500))}}
	qs = append(qs, extra...)
	if w.rnd.Intn(5) == 0 {
		qs = append(qs, req{none: true, ms: w.rnd.Intn(30)}) // a pooled connection closed before any request
	}
	qs = append(qs, req{method: "CONNECT", host: "files.pythonhosted.org", port: 443,
		bytes: n * (180000 + w.rnd.Intn(4200000)), ms: 900 + n*(300+w.rnd.Intn(1800))})
	var names []string
	for _, p := range pkgs {
		names = append(names, strings.NewReplacer("==", "-", ">=", "-").Replace(p))
	}
	args := "install -q " + strings.Join(pkgs, " ")
	ex := "Successfully installed " + strings.Join(names, " ")
	if pkgs[0] == "-r" {
		ex = fmt.Sprintf("Successfully installed %d packages", 14+w.rnd.Intn(30))
	}
	exit := 0
	for _, q := range extra {
		if q.deny {
			exit, ex = 1, "ERROR: Could not find a version that satisfies the requirement (ProxyError: 403 Forbidden)"
		}
	}
	end, _, _ := s.bash(t, "pip "+args, res{excerpt: ex},
		step{bin: "/usr/local/bin/pip", args: args, ms: 1500 + n*400, exit: exit, net: qs, rules: []falcoRule{rulePkgMgmt}})
	return end
}

func (s *session) pytest(t time.Time, target string, failed int) time.Time {
	w := s.w
	h := fnv.New32a()
	h.Write([]byte(s.id + target))
	passed := 20 + int(h.Sum32()%60) - failed // the suite has a fixed size per session
	ex := fmt.Sprintf("%d passed in %.2fs", passed, 2+w.rnd.Float64()*9)
	exit := 0
	if failed > 0 {
		ex = fmt.Sprintf("%d failed, %d passed in %.2fs", failed, passed, 3+w.rnd.Float64()*12)
		exit = 1
	}
	args := "-m pytest -q " + target
	end, _, _ := s.bash(t, "python -m pytest -q "+target, res{excerpt: ex},
		step{bin: "/usr/local/bin/python3", args: args, ms: 2500 + w.rnd.Intn(9000), exit: exit})
	return end
}

func (s *session) gitClone(t time.Time, repo string) time.Time {
	w := s.w
	name := repo[strings.LastIndex(repo, "/")+1:]
	args := fmt.Sprintf("clone --depth 1 https://github.com/%s /work/vendor/%s", repo, name)
	q := req{method: "CONNECT", host: "github.com", port: 443, bytes: 400000 + w.rnd.Intn(9000000), ms: 1200 + w.rnd.Intn(5000)}
	end, _, _ := s.bash(t, "git "+args, res{excerpt: "Cloning into '/work/vendor/" + name + "'..."},
		step{bin: "/usr/bin/git", args: args, ms: 1500, net: []req{q}})
	return end
}

func (s *session) npm(t time.Time, sub string, deny string) time.Time {
	w := s.w
	var qs []req
	for i := 0; i < 3+w.rnd.Intn(4); i++ {
		qs = append(qs, req{method: "CONNECT", host: "registry.npmjs.org", port: 443, bytes: 60000 + w.rnd.Intn(3500000), ms: 800 + w.rnd.Intn(6000)})
	}
	if w.rnd.Intn(3) == 0 {
		qs = append(qs, req{none: true, ms: w.rnd.Intn(40)})
	}
	ex := "added 412 packages, and audited 413 packages in 19s"
	exit := 0
	if deny != "" {
		qs = append(qs, req{method: "CONNECT", host: deny, port: 443, deny: true})
		ex, exit = "npm ERR! request to https://"+deny+" failed, reason: tunneling socket could not be established, statusCode=403", 1
	}
	end, _, _ := s.bash(t, "npm "+sub, res{excerpt: ex},
		step{bin: "/usr/local/bin/npm", args: sub, ms: 4000 + w.rnd.Intn(12000), exit: exit, net: qs})
	return end
}

func (s *session) npmTest(t time.Time, failed int) time.Time {
	ex := fmt.Sprintf("Tests: %d failed, %d passed", failed, 80+s.w.rnd.Intn(40))
	exit := 0
	if failed == 0 {
		ex = fmt.Sprintf("Tests: %d passed", 90+s.w.rnd.Intn(40))
	} else {
		exit = 1
	}
	end, _, _ := s.bash(t, "npm test -- --silent", res{excerpt: ex},
		step{bin: "/usr/local/bin/node", args: "/usr/local/bin/jest --silent", ms: 5000 + s.w.rnd.Intn(9000), exit: exit})
	return end
}

// flavor is one kind of ordinary task.
type flavor struct {
	files   []string
	shells  [][3]string // cmd, binary, args
	install func(s *session, t time.Time) time.Time
	test    func(s *session, t time.Time, failed int) time.Time
	fetch   func(s *session, t time.Time) time.Time
	notes   []string
}

// work does ordinary work from t until until; failures decline as it goes.
func (s *session) work(t, until time.Time, f flavor, failing int) time.Time {
	w := s.w
	installed := f.install == nil
	for {
		t = s.next(t, s.w.pace[0], s.w.pace[1])
		if !t.Before(until) {
			return t
		}
		x := w.rnd.Intn(20)
		switch {
		case !installed:
			t = f.install(s, t)
			installed = true
		case x < 4:
			p := w.pick(f.files)
			h := fnv.New32a()
			h.Write([]byte(p))
			t, _ = s.readFile(t, p, res{excerpt: fmt.Sprintf("%d lines", 40+h.Sum32()%400)})
		case x < 6:
			c := f.shells[w.rnd.Intn(len(f.shells))]
			t = s.local(t, c[0], c[1], c[2], 40+w.rnd.Intn(300), 0, "")
		case x < 9:
			t, _ = s.writeFile(t, w.pick(f.files), 800+w.rnd.Intn(9000), "", res{})
		case x < 15:
			t = f.test(s, t, failing)
			if failing > 0 && w.rnd.Intn(2) == 0 {
				failing--
			}
		case x < 18 && f.fetch != nil:
			t = f.fetch(s, t)
		default:
			s.summary(t, f.notes[s.notes%len(f.notes)])
			s.notes++
			t = t.Add(w.ms(50, 200))
		}
	}
}

var pyShells = [][3]string{
	{"ls -la", "/usr/bin/ls", "-la"}, {"git status --short", "/usr/bin/git", "status --short"},
	{"git diff --stat", "/usr/bin/git", "diff --stat"}, {"grep -rn TODO src", "/usr/bin/grep", "-rn TODO src"},
	{"cat pyproject.toml", "/usr/bin/cat", "pyproject.toml"}, {"python --version", "/usr/local/bin/python3", "--version"},
}

func pyFlavor(files []string, pkgs [][]string, target string, extraInstall *req) flavor {
	return flavor{
		files:  files,
		shells: pyShells,
		install: func(s *session, t time.Time) time.Time {
			t = s.pip(t, []string{"-r", "requirements.txt"})
			if extraInstall != nil { // a benign denial: an index that is not allowlisted
				t = s.pip(s.next(t, 3, 12), []string{"torch", "--extra-index-url", "https://" + extraInstall.host + "/whl/cpu"}, *extraInstall)
			}
			for _, p := range pkgs {
				t = s.pip(s.next(t, 3, 12), p)
			}
			return t
		},
		test: func(s *session, t time.Time, failed int) time.Time { return s.pytest(t, target, failed) },
		fetch: func(s *session, t time.Time) time.Time {
			extra := []string{"pytest-xdist", "freezegun", "hypothesis", "rich", "ipdb", "pytest-cov"}
			n := len(s.installed)
			if n >= len(extra) {
				return s.pytest(t, target, 0)
			}
			s.installed = append(s.installed, extra[(n+len(s.id))%len(extra)])
			return s.pip(t, s.installed[n:])
		},
		notes: []string{"Reproduced the failures; narrowing down to the parser module.", "Fixed the import cycle; re-running the suite.", "Remaining failures are in the fixtures; checking their setup."},
	}
}

func nodeFlavor(files []string, deny string) flavor {
	return flavor{
		files: files,
		shells: [][3]string{{"ls -la", "/usr/bin/ls", "-la"}, {"git status --short", "/usr/bin/git", "status --short"},
			{"cat package.json", "/usr/bin/cat", "package.json"}, {"node --version", "/usr/local/bin/node", "--version"}},
		install: func(s *session, t time.Time) time.Time {
			t = s.npm(t, "ci", "")
			if deny != "" {
				t = s.next(t, 4, 12)
				t = s.npm(t, "run postinstall", deny)
			}
			return t
		},
		test:  func(s *session, t time.Time, failed int) time.Time { return s.npmTest(t, failed) },
		fetch: func(s *session, t time.Time) time.Time { return s.npm(t, "install --no-save date-fns@3.6.0", "") },
		notes: []string{"Reproduced the failing suites locally.", "Two suites still fail; they share a mocked clock in the test setup.", "All suites pass locally; running the full run once more."},
	}
}
