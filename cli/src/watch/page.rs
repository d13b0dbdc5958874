//! The pages a person reads: `GET /`, the cluster's groups worst first; `GET /group/<name>`, each
//! queue's holder against the expected one, its status, cause and lag, the findings and the last
//! owner changes. Plain HTML rendered here, no script and no build step; the class names
//! (`status-STOP`, `cause-orphaned`, ...) are what a test reads in the DOM.

use std::fmt::Write;

use rocketmq_rebalance::diagnose::queue_text;
use rocketmq_rebalance::diagnose::watch::{GroupVerdict, OwnerChange, QueueStatus};

/// What a page shows of one group: a copy taken after each round.
#[derive(Clone, Debug)]
pub struct GroupView {
    pub name: String,
    pub verdict: Option<GroupVerdict>,
    pub error: Option<String>,
    pub last_success_ms: Option<i64>,
    pub recent_changes: Vec<OwnerChange>,
}

impl GroupView {
    fn status(&self) -> Option<QueueStatus> {
        self.verdict.as_ref().map(|v| v.status)
    }

    /// Worst first: a group never read, then by status, then by stuck lag, then by name.
    fn rank(&self) -> (u8, i64) {
        match &self.verdict {
            None => (u8::MAX, 0),
            Some(v) => (v.status.severity(), v.stuck_lag),
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A group name in a path: RocketMQ allows `%` and `|` in names, which a URL must encode.
pub fn encode_name(name: &str) -> String {
    name.replace('%', "%25").replace('|', "%7C")
}

pub fn decode_name(path: &str) -> String {
    path.replace("%7C", "|").replace("%7c", "|").replace("%25", "%")
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}\
.status-OK{background:#dfd}.status-WARN{background:#ffd}.status-STALL,.status-STOP,.status-REWIND,.unread{background:#fdd}.stale{color:#a00}\
tr.mismatch td.holders{background:#fdd;font-weight:bold}td.cause:not(.cause-){color:#a00;font-weight:bold}.flapping{color:#a60}";

fn head(out: &mut String, title: &str) {
    let _ = write!(out, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>", esc(title));
}

fn status_cell(status: Option<QueueStatus>) -> String {
    match status {
        Some(s) => format!("<td class=\"status status-{0}\">{0}</td>", s.name()),
        None => "<td class=\"status unread\">never read</td>".to_owned(),
    }
}

pub fn index(cluster: &str, views: &[GroupView]) -> String {
    let mut sorted: Vec<&GroupView> = views.iter().collect();
    sorted.sort_by(|a, b| b.rank().cmp(&a.rank()).then(a.name.cmp(&b.name)));
    let mut out = String::new();
    head(&mut out, &format!("{cluster}: consumer groups"));
    let _ = write!(out, "<h1>{}: {} consumer groups</h1><p><a href=\"/metrics\">metrics</a></p>", esc(cluster), views.len());
    out.push_str("<table id=\"groups\"><tr><th>group</th><th>status</th><th>members</th><th>lag</th><th>stuck lag</th><th>findings</th><th>read</th></tr>");
    for v in sorted {
        let (members, lag, stuck, findings) = v.verdict.as_ref().map_or((String::new(), String::new(), String::new(), String::new()), |g| {
            (g.members.to_string(), g.lag.to_string(), g.stuck_lag.to_string(), g.findings.len().to_string())
        });
        let read = match &v.error {
            Some(e) => format!("<span class=\"stale\">stale: {}</span>", esc(e)),
            None => "ok".to_owned(),
        };
        let _ = write!(
            out,
            "<tr class=\"group\" data-group=\"{0}\"><td><a href=\"/group/{1}\">{0}</a></td>{2}<td>{members}</td><td>{lag}</td><td class=\"stuck\">{stuck}</td><td>{findings}</td><td>{read}</td></tr>",
            esc(&v.name),
            esc(&encode_name(&v.name)),
            status_cell(v.status())
        );
    }
    out.push_str("</table></body></html>");
    out
}

pub fn group(cluster: &str, v: &GroupView, now_ms: i64) -> String {
    let mut out = String::new();
    head(&mut out, &format!("{}: {}", cluster, v.name));
    let _ = write!(out, "<p><a href=\"/\">{}</a></p><h1>{}</h1>", esc(cluster), esc(&v.name));
    if let Some(e) = &v.error {
        let when = v.last_success_ms.map_or("never".to_owned(), |at| ago(now_ms - at));
        let _ = write!(
            out,
            "<p class=\"stale\" id=\"stale\">The last round could not read this group ({}); what follows is the last good round, read {when}.</p>",
            esc(e)
        );
    }
    let Some(g) = &v.verdict else {
        out.push_str("<p>Not read yet.</p></body></html>");
        return out;
    };
    let _ = write!(
        out,
        "<p id=\"summary\">status <b class=\"status-{0}\">{0}</b>, {1} members (at most {2} useful), lag {3}: {4} drainable, {5} stuck</p>",
        g.status.name(),
        g.members,
        g.useful_members_max,
        g.lag,
        g.drainable_lag,
        g.stuck_lag
    );
    out.push_str("<table id=\"queues\"><tr><th>queue</th><th>held by</th><th>expected by its strategy</th><th>status</th><th>cause</th><th>lag</th></tr>");
    for q in &g.queues {
        let held = if q.holders.is_empty() { "-".to_owned() } else { esc(&q.holders.join(", ")) };
        let expected = if q.expected.is_empty() { "?".to_owned() } else { esc(&q.expected.join(", ")) };
        let cause = q.cause.map_or(String::new(), |c| c.name().to_owned());
        let flap = if q.flapping { " <span class=\"flapping\">flapping</span>" } else { "" };
        let lag = q.lag.map_or("-".to_owned(), |l| l.to_string());
        // Held by other than its strategy names: the one thing to see first on the page.
        let sorted = |v: &[String]| -> Vec<String> {
            let mut v = v.to_vec();
            v.sort();
            v
        };
        let mismatch = if q.expected.is_empty() || sorted(&q.holders) == sorted(&q.expected) { "" } else { " mismatch" };
        let _ = write!(
            out,
            "<tr class=\"queue{mismatch}\" data-queue=\"{0}\"><td>{0}</td><td class=\"holders\">{held}</td><td class=\"expected\">{expected}</td>{1}<td class=\"cause cause-{cause}\">{cause}{flap}</td><td class=\"lag\">{lag}</td></tr>",
            esc(&queue_text(&q.queue)),
            status_cell(Some(q.status))
        );
    }
    out.push_str("</table><h2>Findings</h2><ul id=\"findings\">");
    for f in &g.findings {
        let _ = write!(out, "<li class=\"finding kind-{0}\"><b>{0}</b>: {1}</li>", f.finding.kind.name(), esc(&f.finding.detail));
    }
    out.push_str("</ul><h2>Last owner changes</h2><table id=\"changes\"><tr><th>when</th><th>queue</th><th>from</th><th>to</th></tr>");
    for c in v.recent_changes.iter().rev() {
        let _ = write!(
            out,
            "<tr class=\"change\"><td>{}</td><td>{}@{}:{}</td><td>{}</td><td>{}</td></tr>",
            ago(now_ms - c.at_ms),
            esc(&c.topic),
            esc(&c.broker),
            c.queue_id,
            esc(&c.from.join(", ")),
            esc(&c.to.join(", "))
        );
    }
    out.push_str("</table></body></html>");
    out
}

/// How long ago, in the largest whole unit.
fn ago(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..=119 => format!("{s} s ago"),
        120..=7199 => format!("{} min ago", s / 60),
        _ => format!("{} h ago", s / 3600),
    }
}
