package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/zircote/lro-go/examples/memory/memory"
)

// The chart is drawn by hand: three panels of horizontal bars need no
// plotting library, and plain SVG renders on GitHub and pkg.go.dev alike.

const (
	chartWidth = 900
	labelWidth = 330 // left column of bar labels
	plotWidth  = 470 // width of the bar area
	barHeight  = 16
	barGap     = 6
)

// svgChart draws the report's chart.
type svgChart struct {
	back bytes.Buffer // drawn first, under the bars: grid lines
	b    bytes.Buffer
	y    float64 // top of the next element
}

func (c *svgChart) f(format string, args ...any) { fmt.Fprintf(&c.b, format, args...) }

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func (c *svgChart) text(x, y float64, anchor, class, s string) {
	c.f(`<text x="%.1f" y="%.1f" text-anchor="%s" class="%s">%s</text>`+"\n", x, y, anchor, class, esc(s))
}

func (c *svgChart) title(s string) {
	c.y += 28
	c.text(10, c.y, "start", "h", s)
	c.y += 12
}

// bar draws one bar from x0 to x1 (plot coordinates) with a label on the
// left and a value on the right of the bar.
func (c *svgChart) bar(label, value, color string, x0, x1 float64) {
	c.text(labelWidth-8, c.y+barHeight-4, "end", "l", label)
	lo, hi := math.Min(x0, x1), math.Max(x0, x1)
	c.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"/>`+"\n", labelWidth+lo, c.y, math.Max(hi-lo, 1), barHeight, color)
	c.text(labelWidth+hi+6, c.y+barHeight-4, "start", "v", value)
	c.y += barHeight + barGap
}

// vline draws a dashed vertical line at plot x over the height from y0 to
// the current y, with a caption under it.
func (c *svgChart) vline(x, y0 float64, caption string) {
	c.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="ref"/>`+"\n", labelWidth+x, y0-4, labelWidth+x, c.y)
	c.text(labelWidth+x, c.y+12, "middle", "n", caption)
	c.y += 18
}

// axis draws light vertical grid lines at the powers of ten from lo to hi,
// from y0 to the current y, labelled under it.
func (c *svgChart) axis(lo, hi, y0 float64, unit string) {
	for v := lo; v <= hi*1.0001; v *= 10 {
		x := labelWidth + logScale(v, lo, hi)
		fmt.Fprintf(&c.back, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="grid"/>`+"\n", x, y0-4, x, c.y)
		c.text(x, c.y+10, "middle", "n", decade(v)+unit)
	}
	c.y += 14
}

// decade names a power of ten: 0.1, 10, 1k, 1M.
func decade(v float64) string {
	switch {
	case v < 1:
		return strconv.FormatFloat(v, 'g', 1, 64)
	case v >= 1e6:
		return fmt.Sprintf("%.0fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// logScale maps v in [lo, hi] onto [0, plotWidth] logarithmically.
func logScale(v, lo, hi float64) float64 {
	v = math.Min(math.Max(v, lo), hi)
	return plotWidth * math.Log(v/lo) / math.Log(hi/lo)
}

// decadeBounds returns the powers of ten around lo and hi.
func decadeBounds(lo, hi float64) (float64, float64) {
	return math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
}

// chart renders the report's chart as SVG.
func (r *report) chart() []byte {
	c := &svgChart{}
	body := func() {
		c.text(10, 22, "start", "t", "lro-go against the LRO paper and against writing the bytes")
		m := r.Machine
		c.text(10, 40, "start", "n", fmt.Sprintf("Measured %s on %s, %d logical CPUs; %s; load average %.2f at the start. Regenerate: %s",
			r.Started.UTC().Format("2006-01-02"), m.CPU, m.Cores, strings.TrimPrefix(m.Go, "go version "), m.LoadStart[0], baseCommand))
		c.y = 44

		// Panel 1: tokens.
		c.title("Tokens the model receives, o200k_base, full detail (log scale)")
		lo, hi := math.Inf(1), 0.0
		for _, n := range tokenNs {
			if t, ok := r.row(n, memory.Full); ok {
				lo = math.Min(lo, float64(t.Descriptors[3].O200k))
				hi = math.Max(hi, float64(t.Inline.O200k))
			}
		}
		if hi > 0 {
			lo, hi = decadeBounds(lo, hi)
			top := c.y
			for _, n := range tokenNs {
				t, ok := r.row(n, memory.Full)
				if !ok {
					continue
				}
				c.bar(fmt.Sprintf("n = %s: inline result", thousands(n)), thousands(t.Inline.O200k), "#c0392b", 0, logScale(float64(t.Inline.O200k), lo, hi))
				c.bar("full descriptor", thousands(t.Descriptors[0].O200k), "#2e86c1", 0, logScale(float64(t.Descriptors[0].O200k), lo, hi))
				c.bar("bare pointer", thousands(t.Descriptors[3].O200k), "#85c1e9", 0, logScale(float64(t.Descriptors[3].O200k), lo, hi))
				c.y += 4
			}
			c.axis(lo, hi, top, "")
			c.vline(logScale(paperDescriptorTokens, lo, hi), top, fmt.Sprintf("paper's assumed descriptor: %d tokens", paperDescriptorTokens))
		}

		// Panel 2: offload time.
		if o, ok := r.compare("offload"); ok && o.Status == measured {
			c.title("Offloading 500 full-detail records, median")
			hi := math.Max(paperFileWriteMs*1e6, math.Max(o.ANs, o.BNs)) * 1.05
			lin := func(ns float64) float64 { return plotWidth * ns / hi }
			c.bar("paper: file write (E1 median)", fmt.Sprintf("%.1f ms", paperFileWriteMs), "#7f8c8d", 0, lin(paperFileWriteMs*1e6))
			c.bar("lro-go: offload (marshal, file, descriptor)", duration(o.ANs), "#2e86c1", 0, lin(o.ANs))
			c.bar("floor: json.Marshal + os.WriteFile, same records", duration(o.BNs), "#27ae60", 0, lin(o.BNs))
		}

		// Panel 3: ratios.
		c.title("Side by side, A/B (log scale; 1 = costs the same as B; orange: above its target)")
		rlo, rhi := 1.0, 1.0
		for _, x := range r.Compared {
			if x.Status == measured {
				rlo, rhi = math.Min(rlo, x.Ratio), math.Max(rhi, x.Ratio)
			}
		}
		rlo, rhi = decadeBounds(rlo, rhi)
		if rlo == rhi {
			rhi = rlo * 10
		}
		top := c.y
		for _, x := range r.Compared {
			label := x.Short
			if x.Status != measured {
				c.text(labelWidth-8, c.y+barHeight-4, "end", "l", label)
				c.text(labelWidth+logScale(1, rlo, rhi)+6, c.y+barHeight-4, "start", "v", "pending")
				c.y += barHeight + barGap
				continue
			}
			color := "#2e86c1"
			if x.Target > 0 && x.Ratio > x.Target {
				color = "#e67e22"
			}
			value := times(x.Ratio)
			if x.Target > 0 {
				value += " (target ≤ " + target(x.Target) + ")"
			}
			c.bar(label, value, color, logScale(1, rlo, rhi), logScale(x.Ratio, rlo, rhi))
		}
		x1 := labelWidth + logScale(1, rlo, rhi)
		c.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="ref"/>`+"\n", x1, top-4, x1, c.y)
		c.axis(rlo, rhi, top, "×")
	}
	body()
	height := c.y + 10
	var out bytes.Buffer
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="sans-serif">`+"\n", chartWidth, height, chartWidth, height)
	out.WriteString(strings.Join([]string{
		`<style>`,
		`.t{font-size:16px;font-weight:bold}`,
		`.h{font-size:13px;font-weight:bold}`,
		`.l,.v{font-size:11px}`,
		`.n{font-size:10px;fill:#555}`,
		`.ref{stroke:#555;stroke-dasharray:4 3}`,
		`.grid{stroke:#ddd}`,
		`</style>`,
		`<rect width="100%" height="100%" fill="#fff"/>`,
	}, "\n") + "\n")
	out.Write(c.back.Bytes())
	out.Write(c.b.Bytes())
	out.WriteString("</svg>\n")
	return out.Bytes()
}
