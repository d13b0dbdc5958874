//! Request signing for clusters with ACL, as the Java client's `AclClientRPCHook` signs: the
//! header fields gain `AccessKey` (and `SecurityToken` when there is one), then `Signature`, the
//! Base64 HMAC-SHA1, keyed by the secret key, of every field's value in key order followed by the
//! body. A broker with ACL 1.0 or 2.0 (its default authentication provider) checks exactly this.

use std::collections::BTreeMap;
use std::fmt;

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha1::Sha1;

const ACCESS_KEY: &str = "AccessKey";
const SECURITY_TOKEN: &str = "SecurityToken";
const SIGNATURE: &str = "Signature";

/// The keys a request is signed with. `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    access_key: String,
    secret_key: String,
    security_token: Option<String>,
}

impl Credentials {
    pub fn new(access_key: impl Into<String>, secret_key: impl Into<String>) -> Self {
        Credentials { access_key: access_key.into(), secret_key: secret_key.into(), security_token: None }
    }

    /// A temporary credential's token (`SessionCredentials.securityToken`), signed with the rest.
    pub fn with_security_token(mut self, token: impl Into<String>) -> Self {
        self.security_token = Some(token.into());
        self
    }

    pub fn access_key(&self) -> &str {
        &self.access_key
    }

    /// Adds `AccessKey`, `SecurityToken` and `Signature` to `fields` for a request carrying `body`.
    pub fn sign(&self, fields: &mut BTreeMap<String, String>, body: &[u8]) {
        fields.insert(ACCESS_KEY.to_owned(), self.access_key.clone());
        if let Some(token) = &self.security_token {
            fields.insert(SECURITY_TOKEN.to_owned(), token.clone());
        }
        // Java sorts the fields in a TreeMap<String, String> (UTF-16 order); keys are ASCII
        // header names, for which byte order is the same.
        let mut mac = Hmac::<Sha1>::new_from_slice(self.secret_key.as_bytes()).expect("HMAC takes a key of any length");
        for (key, value) in fields.iter() {
            if key != SIGNATURE {
                mac.update(value.as_bytes());
            }
        }
        mac.update(body);
        let signature = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
        fields.insert(SIGNATURE.to_owned(), signature);
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key", &self.access_key)
            .field("secret_key", &"<hidden>")
            .field("security_token", &self.security_token.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    /// RFC 2202's second HMAC-SHA1 case (key "Jefe", data "what do ya want for nothing?", digest
    /// effcdf6ae5eb2fa2d27416d5f184df9c259a7c79), which in Base64 is 7/zfauXrL6LSdBbV8YTfnCWafHk=:
    /// with no body, the signed text is the field values in key order, the AccessKey included.
    #[test]
    fn the_signature_is_the_hmac_sha1_of_the_values_in_key_order_then_the_body() {
        let mut f = fields(&[("b", " do ya want"), ("c", " for nothing?")]);
        Credentials::new("what", "Jefe").sign(&mut f, b"");
        assert_eq!(f["AccessKey"], "what");
        assert_eq!(f["Signature"], "7/zfauXrL6LSdBbV8YTfnCWafHk=");
        // The same text split between the fields and the body signs the same.
        let mut g = fields(&[("b", " do ya want")]);
        Credentials::new("what", "Jefe").sign(&mut g, b" for nothing?");
        assert_eq!(g["Signature"], "7/zfauXrL6LSdBbV8YTfnCWafHk=");
    }

    #[test]
    fn a_security_token_is_signed_and_an_old_signature_is_not() {
        let mut f = fields(&[("Signature", "stale")]);
        Credentials::new("what", "Jefe").with_security_token(" do ya want for nothing?").sign(&mut f, b"");
        // "AccessKey" < "SecurityToken" < "Signature": "what" + " do ya want for nothing?".
        assert_eq!(f["SecurityToken"], " do ya want for nothing?");
        assert_eq!(f["Signature"], "7/zfauXrL6LSdBbV8YTfnCWafHk=");
    }

    #[test]
    fn debug_hides_the_secret() {
        let text = format!("{:?}", Credentials::new("ak", "very-secret").with_security_token("tok"));
        assert!(text.contains("ak") && !text.contains("very-secret") && !text.contains("tok\""), "{text}");
    }
}
