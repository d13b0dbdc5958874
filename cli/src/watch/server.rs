//! The HTTP side of `watch`: `GET /metrics` (the contract's text), `GET /` and `GET /group/<name>`
//! (the pages). tiny_http answers on its own thread from what the last round published, so a
//! scrape never waits for a round and a round never waits for a scrape.

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use super::page::{self, GroupView};

/// What the last round published.
#[derive(Default)]
pub struct Published {
    pub cluster: String,
    pub metrics: String,
    pub views: Vec<GroupView>,
}

pub type Shared = Arc<Mutex<Arc<Published>>>;

/// Binds `addr` (given as `flag`, for the error) and answers from `shared` on a thread of its own; the address bound.
pub fn serve(addr: &str, flag: &str, shared: Shared) -> Result<String, String> {
    let server = tiny_http::Server::http(addr).map_err(|e| format!("{flag} {addr}: {e}"))?;
    let bound = server.server_addr().to_ip().map_or_else(|| addr.to_owned(), |a| a.to_string());
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            let published = shared.lock().map(|p| Arc::clone(&p)).unwrap_or_default();
            let (status, kind, body) = answer(request.url(), &published);
            let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], kind.as_bytes()).expect("a valid header");
            let _ = request.respond(tiny_http::Response::from_string(body).with_status_code(status).with_header(header));
        }
    });
    Ok(bound)
}

const TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

fn answer(url: &str, p: &Published) -> (u16, &'static str, String) {
    let path = url.split('?').next().unwrap_or_default();
    if path == "/metrics" {
        return (200, TEXT, p.metrics.clone());
    }
    if path == "/" {
        return (200, HTML, page::index(&p.cluster, &p.views));
    }
    if let Some(name) = path.strip_prefix("/group/") {
        let name = page::decode_name(name);
        if let Some(v) = p.views.iter().find(|v| v.name == name) {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
            return (200, HTML, page::group(&p.cluster, v, now));
        }
        return (404, TEXT, format!("no group {name} is watched\n"));
    }
    (404, TEXT, "served: /metrics, /, /group/<name>\n".to_owned())
}
