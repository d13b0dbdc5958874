//! The compare chart: movement against balance, one dot per strategy and grid cell.

use std::fmt::Write as _;

use super::Cell;

/// Movement (x, log scale) against balance (y), one dot per strategy and cell.
pub(super) fn svg(cells: &[Cell]) -> String {
    let colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];
    let mut names: Vec<&str> = cells.iter().map(|c| c.strategy.as_str()).collect();
    names.dedup();
    let (w, h, left, bottom) = (760.0, 480.0, 70.0, 50.0);
    let x_of = |ratio: f64| left + (ratio.max(0.1).log10() + 1.0) / 3.0 * (w - left - 180.0);
    // Cells with fewer queues than members have a max/avg of up to members/queues whatever the
    // strategy: the axis stops at 3 and such points sit on the top edge.
    let y_max = 3.0;
    let y_of = |v: f64| (h - bottom) - (v.min(y_max) / y_max) * (h - bottom - 20.0);
    let mut out = String::new();
    let _ = write!(out, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#);
    let _ = write!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for tick in [0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0] {
        let x = x_of(tick);
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" y1="20" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{tick}</text>"##,
            h - bottom,
            h - bottom + 16.0
        );
    }
    let mut v = 0.0;
    while v <= y_max + 1e-9 {
        let y = y_of(v);
        let _ = write!(
            out,
            r##"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v:.1}</text>"##,
            w - 180.0,
            left - 6.0,
            y + 4.0
        );
        v += 0.25;
    }
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">queues moved on a join and a leave / lower bound (log scale; 1 = optimal)</text>"#,
        (w - 180.0 + left) / 2.0,
        h - 12.0
    );
    let _ = write!(
        out,
        r#"<text transform="translate(16,{:.1}) rotate(-90)" text-anchor="middle">max load / average (1 = perfect; capped at 3)</text>"#,
        (h - bottom) / 2.0
    );
    for c in cells {
        let color = colors[names.iter().position(|n| *n == c.strategy).unwrap_or(0) % colors.len()];
        let ratio = (c.join_moved + c.leave_moved) as f64 / ((c.join_bound + c.leave_bound).max(1)) as f64;
        let _ = write!(
            out,
            r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}" fill-opacity="0.55"><title>{} {}x{}x{}</title></circle>"#,
            x_of(ratio),
            y_of(c.max_over_avg),
            c.strategy,
            c.topics,
            c.queues_per_topic,
            c.members
        );
    }
    for (i, name) in names.iter().enumerate() {
        let y = 40.0 + 20.0 * i as f64;
        let _ = write!(
            out,
            r#"<circle cx="{:.1}" cy="{y:.1}" r="5" fill="{}"/><text x="{:.1}" y="{:.1}">{name}</text>"#,
            w - 165.0,
            colors[i % colors.len()],
            w - 155.0,
            y + 4.0
        );
    }
    out.push_str("</svg>\n");
    out
}
