//! The remoting command: what we send (always a JSON header) and what a server answers with (a
//! JSON header, or the binary `ROCKETMQ` header of a server started with
//! `rocketmq.serialize.type=ROCKETMQ`).
//!
//! Frame content layout (after the length prefix): a 4-byte word whose high byte is the header's
//! serialize type (0 JSON, 1 ROCKETMQ) and whose low 24 bits are the header length, the header,
//! then the body.

use std::collections::BTreeMap;

use crate::{Error, Result};

/// Flag bit 0: the command is a response.
const RESPONSE_FLAG: i32 = 1;
/// The language we announce: every server version knows OTHER (RUST only from 4.9, NODE_JS only in 5.x).
pub const LANGUAGE: &str = "OTHER";
/// The version we announce: V4_9_4's ordinal (401). From it on a NameServer writes the route's
/// `brokerAddrs` as standard JSON; the reader accepts either form anyway.
pub const VERSION: i32 = 401;

/// Serialize types of the header-length word's high byte.
const JSON: u8 = 0;
const ROCKETMQ: u8 = 1;

/// The server's `LanguageCode` byte, as a name (binary headers carry the byte).
const LANGUAGES: [&str; 14] = ["JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "OTHER", "HTTP", "GO", "PHP", "OMS", "RUST", "NODE_JS"];

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RemotingCommand {
    pub code: i32,
    pub language: String,
    pub version: i32,
    pub opaque: i32,
    pub flag: i32,
    pub remark: Option<String>,
    pub ext_fields: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

impl RemotingCommand {
    /// A request with these header fields (no body: every read-only request here puts its
    /// arguments in the header).
    pub fn request(code: i32, opaque: i32, ext_fields: BTreeMap<String, String>) -> Self {
        RemotingCommand { code, language: LANGUAGE.into(), version: VERSION, opaque, flag: 0, remark: None, ext_fields, body: Vec::new() }
    }

    pub fn is_response(&self) -> bool {
        self.flag & RESPONSE_FLAG != 0
    }

    /// The frame content (what follows the length prefix), with a JSON header.
    pub fn encode(&self) -> Vec<u8> {
        let header = serde_json::json!({
            "code": self.code,
            "language": self.language,
            "version": self.version,
            "opaque": self.opaque,
            "flag": self.flag,
            "remark": self.remark,
            "extFields": self.ext_fields,
            "serializeTypeCurrentRPC": "JSON",
        });
        let header = serde_json::to_vec(&header).expect("a JSON value serialises");
        let mut out = Vec::with_capacity(4 + header.len() + self.body.len());
        out.extend_from_slice(&(header.len() as u32).to_be_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(&self.body);
        out
    }

    /// Reads a frame's content (after the length prefix), whichever header encoding it has.
    pub fn decode(content: &[u8]) -> Result<Self> {
        let word = take(content, 0, 4, "the header-length word")?;
        let kind = word[0];
        let header_len = u32::from_be_bytes([0, word[1], word[2], word[3]]) as usize;
        let header = take(content, 4, header_len, "the header")?;
        let body = content[4 + header_len..].to_vec();
        let mut cmd = match kind {
            JSON => decode_json_header(header)?,
            ROCKETMQ => decode_binary_header(header)?,
            other => return Err(Error::BadFrame(format!("unknown header serialize type {other}"))),
        };
        cmd.body = body;
        Ok(cmd)
    }
}

fn take<'a>(bytes: &'a [u8], at: usize, len: usize, what: &str) -> Result<&'a [u8]> {
    at.checked_add(len)
        .and_then(|end| bytes.get(at..end))
        .ok_or_else(|| Error::BadFrame(format!("{what} needs {len} bytes at offset {at}; the frame has {}", bytes.len())))
}

fn decode_json_header(header: &[u8]) -> Result<RemotingCommand> {
    let v: serde_json::Value = serde_json::from_slice(header).map_err(|e| Error::BadFrame(format!("the JSON header: {e}")))?;
    let int = |key: &str| v.get(key).and_then(serde_json::Value::as_i64).unwrap_or(0) as i32;
    let code = v.get("code").and_then(serde_json::Value::as_i64).ok_or_else(|| Error::BadFrame("the JSON header has no code".into()))?;
    let mut ext_fields = BTreeMap::new();
    if let Some(fields) = v.get("extFields").and_then(serde_json::Value::as_object) {
        for (k, val) in fields {
            // fastjson writes the strings of a String map; anything else is kept as its JSON text.
            ext_fields.insert(k.clone(), val.as_str().map_or_else(|| val.to_string(), str::to_owned));
        }
    }
    Ok(RemotingCommand {
        code: code as i32,
        language: v.get("language").and_then(serde_json::Value::as_str).unwrap_or("").to_owned(),
        version: int("version"),
        opaque: int("opaque"),
        flag: int("flag"),
        remark: v.get("remark").and_then(serde_json::Value::as_str).map(str::to_owned),
        ext_fields,
        body: Vec::new(),
    })
}

/// The binary header (`RocketMQSerializable`): code (i16), language (u8), version (i16), opaque
/// (i32), flag (i32), remark (i32 length + UTF-8), extFields (i32 length, then entries of an i16
/// key length + key and an i32 value length + value). All big-endian.
fn decode_binary_header(h: &[u8]) -> Result<RemotingCommand> {
    let mut r = Bytes { bytes: h, at: 0 };
    let code = i32::from(r.i16()?);
    let language = r.u8()?;
    let version = i32::from(r.i16()?);
    let opaque = r.i32()?;
    let flag = r.i32()?;
    let remark_len = r.len_i32("remark")?;
    let remark = if remark_len > 0 { Some(r.string(remark_len, "remark")?) } else { None };
    let ext_len = r.len_i32("extFields")?;
    let ext = r.slice(ext_len, "extFields")?;
    let mut e = Bytes { bytes: ext, at: 0 };
    let mut ext_fields = BTreeMap::new();
    while e.at < ext.len() {
        let key_len = e.i16()?;
        let key_len = usize::try_from(key_len).map_err(|_| Error::BadFrame(format!("negative extFields key length {key_len}")))?;
        let key = e.string(key_len, "an extFields key")?;
        let value_len = e.len_i32("an extFields value")?;
        let value = e.string(value_len, "an extFields value")?;
        ext_fields.insert(key, value);
    }
    Ok(RemotingCommand {
        code,
        language: LANGUAGES.get(usize::from(language)).map_or_else(|| format!("CODE_{language}"), |s| (*s).to_owned()),
        version,
        opaque,
        flag,
        remark,
        ext_fields,
        body: Vec::new(),
    })
}

/// A cursor over a binary header; every read is bounds-checked.
struct Bytes<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    fn slice(&mut self, len: usize, what: &str) -> Result<&'a [u8]> {
        let s = take(self.bytes, self.at, len, what)?;
        self.at += len;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.slice(1, "the language byte")?[0])
    }
    fn i16(&mut self) -> Result<i16> {
        let s = self.slice(2, "a 16-bit field")?;
        Ok(i16::from_be_bytes([s[0], s[1]]))
    }
    fn i32(&mut self) -> Result<i32> {
        let s = self.slice(4, "a 32-bit field")?;
        Ok(i32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn len_i32(&mut self, what: &str) -> Result<usize> {
        let n = self.i32()?;
        usize::try_from(n).map_err(|_| Error::BadFrame(format!("negative length {n} of {what}")))
    }
    fn string(&mut self, len: usize, what: &str) -> Result<String> {
        let s = self.slice(len, what)?;
        String::from_utf8(s.to_vec()).map_err(|_| Error::BadFrame(format!("{what} is not UTF-8")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn a_request_round_trips_through_its_json_header() {
        let mut sent = RemotingCommand::request(105, 7, fields(&[("topic", "T")]));
        sent.body = b"payload".to_vec();
        let back = RemotingCommand::decode(&sent.encode()).unwrap();
        assert_eq!(back, sent);
        assert!(!back.is_response());
    }

    /// Built by hand from the layout in the doc comment of `decode_binary_header`: a response
    /// (flag 1) to opaque 9 with code 0, language JAVA (0), version 401, remark "ok" and one
    /// extField, then a body.
    #[test]
    fn a_binary_rocketmq_header_is_read() {
        let mut h = Vec::new();
        h.extend_from_slice(&0i16.to_be_bytes());
        h.push(0);
        h.extend_from_slice(&401i16.to_be_bytes());
        h.extend_from_slice(&9i32.to_be_bytes());
        h.extend_from_slice(&1i32.to_be_bytes());
        h.extend_from_slice(&2i32.to_be_bytes());
        h.extend_from_slice(b"ok");
        let mut ext = Vec::new();
        ext.extend_from_slice(&5i16.to_be_bytes());
        ext.extend_from_slice(b"topic");
        ext.extend_from_slice(&1i32.to_be_bytes());
        ext.extend_from_slice(b"T");
        h.extend_from_slice(&(ext.len() as i32).to_be_bytes());
        h.extend_from_slice(&ext);
        let mut content = vec![ROCKETMQ, 0, 0, h.len() as u8];
        content.extend_from_slice(&h);
        content.extend_from_slice(b"{}");
        let cmd = RemotingCommand::decode(&content).unwrap();
        assert_eq!((cmd.code, cmd.language.as_str(), cmd.version, cmd.opaque), (0, "JAVA", 401, 9));
        assert!(cmd.is_response());
        assert_eq!(cmd.remark.as_deref(), Some("ok"));
        assert_eq!(cmd.ext_fields, fields(&[("topic", "T")]));
        assert_eq!(cmd.body, b"{}");
    }

    #[test]
    fn truncated_or_lying_headers_are_errors_not_panics() {
        let good = RemotingCommand::request(38, 1, fields(&[("consumerGroup", "G")])).encode();
        for cut in 0..good.len() {
            let r = RemotingCommand::decode(&good[..cut]);
            // Cutting inside the body still decodes (the body is whatever follows the header).
            if cut < 4 + u32::from_be_bytes([0, good[1], good[2], good[3]]) as usize {
                assert!(r.is_err(), "cut at {cut}");
            }
        }
        assert!(RemotingCommand::decode(&[7, 0, 0, 0]).is_err(), "unknown serialize type");
        // A binary header whose remark claims more bytes than there are, and one with a negative length.
        let mut h = vec![ROCKETMQ, 0, 0, 17];
        h.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF]);
        assert!(RemotingCommand::decode(&h).is_err());
        h[4 + 13] = 0xFF;
        assert!(RemotingCommand::decode(&h).is_err());
    }
}
