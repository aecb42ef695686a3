//! Inline SVG charts, drawn in Rust so the page needs no chart library.
//! Each mark carries a `<title>` (the browser shows it on hover, a screen
//! reader reads it); every chart has a table beside it for exact figures.

use super::html::esc;
use std::fmt::Write as _;

const W: f64 = 800.0;
const H: f64 = 220.0;
const PAD_L: f64 = 56.0;
const PAD_B: f64 = 24.0;
const PAD_T: f64 = 8.0;

/// Colours per series, chosen to stay apart in light and dark mode; the
/// CSS variables let the theme override them.
pub fn series_class(i: usize) -> String {
    format!("s{}", i % 8)
}

/// One bar of a stacked chart: its label and each series' value.
pub struct Bar {
    pub label: String,
    pub parts: Vec<(usize, f64)>,
}

/// Round top of the axis: 1, 2 or 5 times a power of ten.
fn nice_max(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if v <= m * p {
            return m * p;
        }
    }
    10.0 * p
}

fn y_axis(out: &mut String, max: f64, fmt: &dyn Fn(f64) -> String) {
    for i in 0..=4 {
        let v = max * f64::from(i) / 4.0;
        let y = PAD_T + (H - PAD_T - PAD_B) * (1.0 - f64::from(i) / 4.0);
        let _ = write!(
            out,
            r#"<line class="grid" x1="{PAD_L}" x2="{W}" y1="{y:.1}" y2="{y:.1}"/><text class="axis" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            PAD_L - 4.0,
            y + 4.0,
            esc(&fmt(v))
        );
    }
}

/// A stacked bar chart; `names` labels the series in titles and legend.
pub fn stacked_bars(
    aria: &str,
    bars: &[Bar],
    names: &[String],
    fmt: &dyn Fn(f64) -> String,
) -> String {
    let totals: Vec<f64> = bars
        .iter()
        .map(|b| b.parts.iter().map(|p| p.1).sum())
        .collect();
    let max = nice_max(totals.iter().copied().fold(0.0, f64::max));
    let mut out = String::with_capacity(bars.len() * 200 + 1024);
    let _ = write!(
        out,
        r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{}" preserveAspectRatio="none">"#,
        esc(aria)
    );
    y_axis(&mut out, max, fmt);
    let plot_h = H - PAD_T - PAD_B;
    let slot = (W - PAD_L) / bars.len().max(1) as f64;
    let bw = (slot * 0.8).max(0.5);
    let label_every = (bars.len() / 8).max(1);
    for (i, (b, total)) in bars.iter().zip(&totals).enumerate() {
        let x = PAD_L + slot * i as f64 + (slot - bw) / 2.0;
        let mut y = H - PAD_B;
        let _ = write!(out, "<g><title>{} — {}", esc(&b.label), esc(&fmt(*total)));
        for (s, v) in &b.parts {
            let name = names.get(*s).map_or("?", String::as_str);
            let _ = write!(out, "\n{}: {}", esc(name), esc(&fmt(*v)));
        }
        out.push_str("</title>");
        for (s, v) in &b.parts {
            let h = plot_h * v / max;
            y -= h;
            let _ = write!(
                out,
                r#"<rect class="{}" x="{x:.1}" y="{y:.1}" width="{bw:.1}" height="{h:.1}"/>"#,
                series_class(*s)
            );
        }
        out.push_str("</g>");
        if i % label_every == 0 {
            let _ = write!(
                out,
                r#"<text class="axis" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                x + bw / 2.0,
                H - 6.0,
                esc(&b.label)
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// A horizontal line across a line chart (a threshold).
pub struct Rule {
    pub value: f64,
    pub class: &'static str,
    pub label: String,
}

/// A point to mark on a line chart (where something happened).
pub struct Mark {
    pub index: usize,
    pub label: String,
}

/// Values over steps (a session's context fill over its turns).
pub fn line(
    aria: &str,
    values: &[f64],
    rules: &[Rule],
    marks: &[Mark],
    fmt: &dyn Fn(f64) -> String,
) -> String {
    let top = values
        .iter()
        .copied()
        .chain(rules.iter().map(|r| r.value))
        .fold(0.0, f64::max);
    let max = nice_max(top);
    let plot_h = H - PAD_T - PAD_B;
    let n = values.len().max(2) - 1;
    let x_of = |i: usize| PAD_L + (W - PAD_L - 8.0) * i as f64 / n as f64;
    let y_of = |v: f64| PAD_T + plot_h * (1.0 - v / max);
    let mut out = String::with_capacity(values.len() * 24 + 1024);
    let _ = write!(
        out,
        r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{}" preserveAspectRatio="none">"#,
        esc(aria)
    );
    y_axis(&mut out, max, fmt);
    for r in rules {
        let y = y_of(r.value);
        let _ = write!(
            out,
            r#"<line class="rule {}" x1="{PAD_L}" x2="{W}" y1="{y:.1}" y2="{y:.1}"><title>{}</title></line>"#,
            r.class,
            esc(&r.label)
        );
    }
    out.push_str(r#"<polyline class="fill" points=""#);
    for (i, v) in values.iter().enumerate() {
        let _ = write!(out, "{:.1},{:.1} ", x_of(i), y_of(*v));
    }
    out.push_str(r#""/>"#);
    for m in marks {
        if let Some(v) = values.get(m.index) {
            let _ = write!(
                out,
                r#"<circle class="fire" cx="{:.1}" cy="{:.1}" r="5"><title>{}</title></circle>"#,
                x_of(m.index),
                y_of(*v),
                esc(&m.label)
            );
        }
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_carry_titles_and_escape_labels() {
        let bars = vec![Bar {
            label: "<d>".into(),
            parts: vec![(0, 1.5), (1, 0.5)],
        }];
        let names = vec!["opus".to_string(), "<sonnet>".to_string()];
        let s = stacked_bars("cost", &bars, &names, &|v| format!("${v:.2}"));
        assert!(
            s.contains("<title>&lt;d&gt; — $2.00\nopus: $1.50\n&lt;sonnet&gt;: $0.50</title>"),
            "{s}"
        );
        assert_eq!(s.matches("<rect").count(), 2);
        assert!(!s.contains("<d>"));
    }

    #[test]
    fn line_marks_fires_and_draws_rules() {
        let s = line(
            "fill",
            &[10.0, 50.0, 90.0],
            &[Rule {
                value: 80.0,
                class: "warn",
                label: "warn 80".into(),
            }],
            &[Mark {
                index: 2,
                label: "fired".into(),
            }],
            &|v| format!("{v}"),
        );
        assert_eq!(s.matches("<circle").count(), 1);
        assert!(s.contains(r#"class="rule warn""#));
        assert!(s.contains("<title>fired</title>"));
        assert_eq!(nice_max(90.0), 100.0);
        assert_eq!(nice_max(120.0), 200.0);
    }
}
