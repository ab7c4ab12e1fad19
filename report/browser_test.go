package report_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromiumPath is the browser the rendering tests drive: $CHROMIUM, else
// Debian's chromium on PATH.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browserChecks runs in the page: boxes that overflow the width, the
// pictures and their boxes, the first page's boxes, and for each summary
// link the text of the section it points to (from its heading to the
// next heading of the same level).
const browserChecks = `(() => {
  const W = document.documentElement.clientWidth;
  const over = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 1) over.push(el.tagName + (el.id ? '#' + el.id : '') + ' ' + Math.round(r.right));
  }
  const svgs = [...document.querySelectorAll('figure svg')].map(s => {
    const r = s.getBoundingClientRect();
    return {w: r.width, h: r.height, children: s.childElementCount};
  });
  const box = sel => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, text: e.innerText.length}; };
  const front = {};
  for (const sel of ['#front h1', '#status', '#summary ol', '#front-impact', '#front-containment']) front[sel] = box(sel);
  const links = [...document.querySelectorAll('#summary ol a')].map(a => {
    const id = a.getAttribute('href').slice(1);
    const h = document.getElementById(id);
    let text = '';
    if (h) {
      for (let n = h.nextElementSibling; n && !(n.tagName === h.tagName || (n.tagName[0] === 'H' && n.tagName < h.tagName)); n = n.nextElementSibling) text += ' ' + n.textContent;
    }
    return {href: id, found: !!h, events: (a.dataset.events || '').split(' ').filter(Boolean), text};
  });
  // the capability graph as drawn: no two labels, and no label and a
  // box it is not inside, intersect
  const overlaps = [];
  const g = document.querySelector('svg[aria-label="Attribution and capability graph"]');
  if (g) {
    const texts = [...g.querySelectorAll('text')].map(e => ({t: e.textContent, r: e.getBoundingClientRect()}));
    const rects = [...g.querySelectorAll('rect[x]')].map(e => e.getBoundingClientRect());
    const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
    texts.forEach((a, i) => {
      texts.slice(i + 1).forEach(b => { if (hit(a.r, b.r)) overlaps.push(a.t + ' / ' + b.t); });
      rects.forEach(r => { if (hit(a.r, r) && !inside(a.r, r)) overlaps.push(a.t + ' / a box'); });
    });
  }
  return {width: W, scroll: document.documentElement.scrollWidth, over: over.slice(0, 10), svgs, front, links, height: innerHeight, overlaps: overlaps.slice(0, 10), text: document.body.innerText};
})()`

type browserResult struct {
	Width, Scroll, Height float64
	Over                  []string
	SVGs                  []struct{ W, H, Children float64 }
	Front                 map[string]*struct{ Top, Bottom, Text float64 }
	Overlaps              []string
	Text                  string // the page's text as read
	Links                 []struct {
		Href   string
		Found  bool
		Events []string
		Text   string
	}
}

// renderInBrowser renders every sample's HTML report in one headless
// Chromium, at a 1280×800 screen and at A4 print width, and prints one
// to PDF.
func renderInBrowser(t *testing.T, samples []sampleReport) {
	t.Run("chromium", func(t *testing.T) {
		path := chromiumPath()
		if path == "" {
			if os.Getenv("CORDON_REQUIRE_BROWSER") != "" {
				t.Fatal("no chromium on PATH (set CHROMIUM)")
			}
			t.Skip("no chromium on PATH: install Debian's chromium, or set CHROMIUM")
		}
		pages := map[string][]byte{}
		for _, s := range samples {
			pages["/"+s.name+".html"] = s.html
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, ok := pages[r.URL.Path]
			if r.URL.Path == "/favicon.ico" { // the browser's own habit, not the report's
				http.NotFound(w, r)
				return
			}
			if !ok {
				// the report loads nothing: any other request is a failure
				t.Errorf("the report requested %s", r.URL.Path)
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(b)
		}))
		defer srv.Close()
		// Without the networking flags Chromium stalls on a closed network.
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-extensions", true), chromedp.Flag("disable-sync", true),
		}
		actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
		defer cancel()
		bctx, cancel := chromedp.NewContext(actx)
		defer cancel()
		// the first Run starts the browser and must not carry a timeout
		if err := chromedp.Do(bctx); err != nil {
			t.Fatalf("start chromium: %v", err)
		}
		media := func(m string) chromedp.Action[chromedp.Void] {
			return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: m})
				return err
			})
		}
		for i, s := range samples {
			ctx, cancelRun := context.WithTimeout(bctx, time.Minute)
			err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), media("screen"), chromedp.Navigate(srv.URL+"/"+s.name+".html"))
			var screen, print browserResult
			if err == nil {
				screen, err = chromedp.Run(ctx, chromedp.Evaluate[browserResult](browserChecks))
			}
			if err == nil {
				// A4 at 96 dpi less the print margins: what a printed page holds
				err = chromedp.Do(ctx, chromedp.EmulateViewport(700, 1000), media("print"))
			}
			if err == nil {
				print, err = chromedp.Run(ctx, chromedp.Evaluate[browserResult](browserChecks))
			}
			var pdf []byte
			if err == nil && i == 0 { // one PDF shows the print layout paginates
				pdf, err = chromedp.Run(ctx, chromedp.PrintToPDF(chromedp.PDFPaper(chromedp.PaperA4)))
			}
			cancelRun()
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			t.Logf("%s: first page %v; print width %v", s.name, frontBottoms(screen), print.Width)
			checkScreen(t, s, screen)
			// identifiers a responder acts on are shown, as drawn (not
			// redacted): a key id to revoke, an account, a file's path
			for _, id := range shownIdentifiers[s.name] {
				if !strings.Contains(screen.Text, id) {
					t.Errorf("%s: %s is not shown in the rendered report", s.name, id)
				}
			}
			if len(print.Over) > 0 || print.Scroll > print.Width+1 {
				t.Errorf("%s: in print, boxes overflow the page width %v: %v", s.name, print.Width, print.Over)
			}
			if i == 0 {
				if n := bytes.Count(pdf, []byte("/Type /Page\n")) + bytes.Count(pdf, []byte("/Type /Page ")) + bytes.Count(pdf, []byte("/Type/Page/")) + bytes.Count(pdf, []byte("/Type /Page>")); n < 3 && bytes.Count(pdf, []byte("/Type /Page")) < 3 {
					t.Errorf("%s: the printed report has fewer than 3 pages (%d bytes of PDF)", s.name, len(pdf))
				}
			}
		}
	})
}

// shownIdentifiers are identifiers each sample's report must show.
var shownIdentifiers = map[string][]string{
	"cloud-key-after-kill": {"AKIAEVAL611EXAMPLE01"},
	"credential-theft":     {"/run/secrets/eval/s-228/allowlist.txt"},
	"created-workload":     {"system:serviceaccount:agent-evals:sb-301-runner"},
}

func checkScreen(t *testing.T, s sampleReport, res browserResult) {
	if len(res.Overlaps) > 0 {
		t.Errorf("%s: the graph's labels overlap as drawn: %q", s.name, res.Overlaps)
	}
	t.Helper()
	if res.Width != 1280 || res.Height != 800 {
		t.Errorf("%s: viewport %vx%v", s.name, res.Width, res.Height)
	}
	if len(res.Over) > 0 || res.Scroll > res.Width+1 {
		t.Errorf("%s: boxes overflow the page width %v (scroll width %v): %v", s.name, res.Width, res.Scroll, res.Over)
	}
	if len(res.SVGs) != len(s.r.Pictures()) {
		t.Errorf("%s: %d pictures rendered, want %d", s.name, len(res.SVGs), len(s.r.Pictures()))
	}
	for i, p := range res.SVGs {
		if p.W < 100 || p.H < 50 || p.Children < 3 {
			t.Errorf("%s: picture %d renders %vx%v with %v elements", s.name, i, p.W, p.H, p.Children)
		}
	}
	for sel, b := range res.Front {
		switch {
		case b == nil:
			t.Errorf("%s: the first page lacks %s", s.name, sel)
		case b.Top < 0 || b.Bottom > res.Height || b.Text == 0:
			t.Errorf("%s: %s is at %v–%v (%v characters), not within the first %v pixels", s.name, sel, b.Top, b.Bottom, b.Text, res.Height)
		}
	}
	if len(res.Links) != 5 {
		t.Errorf("%s: %d summary links, want 5", s.name, len(res.Links))
	}
	for _, l := range res.Links {
		if !l.Found {
			t.Errorf("%s: a summary sentence links to #%s, which is not there", s.name, l.Href)
			continue
		}
		for _, id := range l.Events {
			if !strings.Contains(l.Text, id) {
				t.Errorf("%s: a summary sentence rests on %s, which section #%s does not show", s.name, id, l.Href)
			}
		}
	}
}

func frontBottoms(r browserResult) map[string]float64 {
	m := map[string]float64{}
	for k, b := range r.Front {
		if b != nil {
			m[k] = b.Bottom
		}
	}
	return m
}
