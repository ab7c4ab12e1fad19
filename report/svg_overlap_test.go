package report_test

import (
	"context"
	"html"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/report"
)

var (
	svgTextRe = regexp.MustCompile(`<text x="(\d+)" y="(\d+)"(?: font-size="(\d+)")?[^>]*>([^<]*)</text>`)
	svgRectRe = regexp.MustCompile(`<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"`)
)

type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }
func (a box) inside(b box) bool   { return a.x0 >= b.x0 && a.x1 <= b.x1 && a.y0 >= b.y0 && a.y1 <= b.y1 }

// In every bundled sample's capability graph no label overlaps another,
// and none crosses a box other than the one it names: a text's box is
// measured at 0.62 em a character (wider than the sans-serif average),
// from its baseline up one em.
func TestGraphLabelsDoNotOverlap(t *testing.T) {
	for _, sample := range incidenttest.Samples(t) {
		t.Run(filepath.Base(sample), func(t *testing.T) {
			ws := incidenttest.New(t, sample)
			r, err := report.Build(context.Background(), ws, report.At(reportGenerated))
			if err != nil {
				t.Fatal(err)
			}
			var svg string
			for _, pic := range r.Pictures() {
				if pic.Name == "graph.svg" {
					svg = pic.SVG
				}
			}
			num := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
			var labels []box
			var texts []string
			for _, m := range svgTextRe.FindAllStringSubmatch(svg, -1) {
				fs := 12.0
				if m[3] != "" {
					fs = num(m[3])
				}
				x, y := num(m[1]), num(m[2])
				w := 0.62 * fs * float64(utf8.RuneCountInString(html.UnescapeString(m[4])))
				labels = append(labels, box{x, y - fs, x + w, y + 0.25*fs})
				texts = append(texts, html.UnescapeString(m[4]))
			}
			var rects []box
			for _, m := range svgRectRe.FindAllStringSubmatch(svg, -1) {
				x, y := num(m[1]), num(m[2])
				rects = append(rects, box{x, y, x + num(m[3]), y + num(m[4])})
			}
			if len(rects) == 0 && len(labels) < 2 {
				t.Skip("no graph drawn for this sample")
			}
			for i := range labels {
				for j := i + 1; j < len(labels); j++ {
					if labels[i].overlaps(labels[j]) {
						t.Errorf("labels %q and %q overlap", texts[i], texts[j])
					}
				}
				for _, r := range rects {
					if labels[i].overlaps(r) && !labels[i].inside(r) {
						t.Errorf("label %q crosses a box %v", texts[i], r)
					}
				}
			}
		})
	}
}
