//! A tolerant reader of the bodies RocketMQ servers and clients write with fastjson 1.2: JSON,
//! except that a map's keys are written as whatever the key is, so `Map<MessageQueue, V>` comes out
//! as `{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}` and `Map<Long, String>` as `{0:"addr"}`.
//! Standard JSON parsers refuse both. This one accepts any value as a key and keeps the members
//! in order; it refuses everything else that is not JSON, with the byte offset, and never
//! recurses deeper than [`MAX_DEPTH`] (a hostile body cannot overflow the stack).

use crate::{Error, Result};

/// Nesting deeper than this is refused; the deepest real answer (running info) nests about 6.
pub const MAX_DEPTH: usize = 128;

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// Kept as written: offsets and timestamps are 64-bit and must not pass through a float.
    Number(String),
    String(String),
    Array(Vec<Json>),
    /// Members in written order; a key may be any value.
    Object(Vec<(Json, Json)>),
}

impl Json {
    pub fn parse(bytes: &[u8]) -> Result<Json> {
        let mut p = Parser { bytes, at: 0 };
        p.skip_ws();
        let v = p.value(0)?;
        p.skip_ws();
        if p.at != bytes.len() {
            return Err(p.error("trailing characters after the value"));
        }
        Ok(v)
    }

    /// The member whose key is the string `key`.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.members().iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }

    /// An object's members (empty for anything else).
    pub fn members(&self) -> &[(Json, Json)] {
        match self {
            Json::Object(m) => m,
            _ => &[],
        }
    }

    /// An array's items (empty for anything else).
    pub fn items(&self) -> &[Json] {
        match self {
            Json::Array(a) => a,
            _ => &[],
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// A number, or a string holding one (fastjson writes some longs as strings).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) | Json::String(n) => n.parse().ok(),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            Json::String(s) => s.parse().ok(),
            _ => None,
        }
    }

    /// The text of a key as a map over strings would have it: a string as is, a number as written.
    pub fn key_text(&self) -> Option<&str> {
        match self {
            Json::String(s) | Json::Number(s) => Some(s),
            _ => None,
        }
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> Error {
        Error::BadJson { at: self.at, what: what.to_owned() }
    }

    fn skip_ws(&mut self) {
        while self.bytes.get(self.at).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn expect(&mut self, b: u8) -> Result<()> {
        if self.peek() == Some(b) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", b as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        match self.peek() {
            None => Err(self.error("unexpected end")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
        }
    }

    fn literal(&mut self, word: &str, v: Json) -> Result<Json> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(v)
        } else {
            Err(self.error(&format!("expected {word}")))
        }
    }

    fn number(&mut self) -> Result<Json> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let digits = |p: &mut Self| {
            let from = p.at;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.at += 1;
            }
            p.at > from
        };
        if !digits(self) {
            return Err(self.error("a number needs digits"));
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !digits(self) {
                return Err(self.error("a fraction needs digits"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return Err(self.error("an exponent needs digits"));
            }
        }
        Ok(Json::Number(String::from_utf8(self.bytes[start..self.at].to_vec()).expect("ASCII")))
    }

    fn string(&mut self) -> Result<String> {
        self.expect(b'"')?;
        let mut out = Vec::new();
        loop {
            let Some(b) = self.peek() else { return Err(self.error("unterminated string")) };
            self.at += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.peek() else { return Err(self.error("unterminated escape")) };
                    self.at += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let c = self.unicode_escape()?;
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        }
                        _ => return Err(self.error("unknown escape")),
                    }
                }
                _ => out.push(b),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("a string that is not UTF-8"))
    }

    fn hex4(&mut self) -> Result<u32> {
        let hex = self.bytes.get(self.at..self.at + 4).ok_or_else(|| self.error("a \\u escape needs 4 hex digits"))?;
        let n = std::str::from_utf8(hex).ok().and_then(|h| u32::from_str_radix(h, 16).ok()).ok_or_else(|| self.error("bad \\u escape"))?;
        self.at += 4;
        Ok(n)
    }

    fn unicode_escape(&mut self) -> Result<char> {
        let first = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&first) {
            // A surrogate pair: the low half must follow as another \u escape.
            if !self.bytes[self.at..].starts_with(b"\\u") {
                return Err(self.error("a high surrogate without its low half"));
            }
            self.at += 2;
            let second = self.hex4()?;
            if !(0xDC00..0xE000).contains(&second) {
                return Err(self.error("a high surrogate without its low half"));
            }
            0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else {
            first
        };
        char::from_u32(code).ok_or_else(|| self.error("a \\u escape that is no character"))
    }

    fn array(&mut self, depth: usize) -> Result<Json> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json> {
        self.expect(b'{')?;
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_ws();
            let key = self.value(depth + 1)?;
            self.skip_ws();
            self.expect(b':')?;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_and_number_keys_as_fastjson_writes_them() {
        let body = br#"{"mqTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"locked":true,"lastLockTimestamp":1764680000123}},"brokerAddrs":{0:"127.0.0.1:10911"}}"#;
        let v = Json::parse(body).unwrap();
        let (queue, info) = &v.get("mqTable").unwrap().members()[0];
        assert_eq!(queue.get("brokerName").and_then(Json::as_str), Some("broker-a"));
        assert_eq!(queue.get("queueId").and_then(Json::as_i64), Some(0));
        assert_eq!(info.get("locked").and_then(Json::as_bool), Some(true));
        assert_eq!(info.get("lastLockTimestamp").and_then(Json::as_i64), Some(1_764_680_000_123));
        let (id, addr) = &v.get("brokerAddrs").unwrap().members()[0];
        assert_eq!((id.key_text(), addr.as_str()), (Some("0"), Some("127.0.0.1:10911")));
    }

    #[test]
    fn standard_json_reads_the_same() {
        let v = Json::parse(br#" { "a" : [1, -2.5e3, "x\u00e9\ud83d\ude00\n", null, false] } "#).unwrap();
        let items = v.get("a").unwrap().items();
        assert_eq!(items[0].as_i64(), Some(1));
        assert_eq!(items[1], Json::Number("-2.5e3".into()));
        assert_eq!(items[2].as_str(), Some("xé😀\n"));
        assert_eq!((&items[3], &items[4]), (&Json::Null, &Json::Bool(false)));
    }

    #[test]
    fn malformed_input_is_an_error_with_its_offset() {
        for (bad, at) in [(&b"{\"a\":}"[..], 5), (b"[1,]", 3), (b"{\"a\" 1}", 5), (b"\"abc", 4), (b"tru", 0), (b"1 2", 2), (b"-", 1), (b"\"\\ud800x\"", 7)] {
            match Json::parse(bad) {
                Err(Error::BadJson { at: got, .. }) => assert_eq!(got, at, "{}", String::from_utf8_lossy(bad)),
                other => panic!("{} gave {other:?}", String::from_utf8_lossy(bad)),
            }
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        assert!(matches!(Json::parse(deep.as_bytes()), Err(Error::BadJson { what, .. }) if what.contains("deeply")));
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(Json::parse(ok.as_bytes()).is_ok());
    }
}
