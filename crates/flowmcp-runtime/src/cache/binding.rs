//! The secret key a cache binds its entries to the server-parameter values with.
//!
//! An entry records `valuesMac`, the HMAC-SHA256 under this key of the canonical JSON of the
//! values the request was sent with (`{"API_KEY": "…"}`): a call with other values (another API
//! key, so another account) misses it and overwrites it. The key itself is never written into an
//! entry, so whoever reads entries cannot test guesses of a value against them.
//!
//! A file cache keeps its key in its own directory ([`BindingKey::load_or_create`], the file
//! [`KEY_FILE`]: 32 random bytes as hex, mode 0600, created once and atomically). Processes that
//! share a Redis cache are given one key by their deployment ([`BindingKey::from_text`]).

use std::fmt;
use std::io;
use std::path::Path;

use rand_core::RngCore;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The file in a cache directory that holds its key.
pub const KEY_FILE: &str = ".preload-key";
/// Random bytes of a key file's key.
const KEY_BYTES: usize = 32;

/// The secret key entries are bound to server-parameter values with (see the module
/// documentation). Its `Debug` shows no byte of it.
#[derive(Clone, PartialEq, Eq)]
pub struct BindingKey(Vec<u8>);

/// Why a key given as text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindingKeyError {
    /// Shorter than [`BindingKey::MIN_LEN`] bytes.
    #[error("a cache key must be at least {min} bytes long (it has {len})")]
    TooShort {
        /// The key's length in bytes.
        len: usize,
        /// The least length accepted.
        min: usize,
    },
}

impl fmt::Debug for BindingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BindingKey(…)")
    }
}

impl BindingKey {
    /// The least length in bytes of a key given as text.
    pub const MIN_LEN: usize = 16;

    /// A key given by a deployment (the same text for every process sharing a cache); at least
    /// [`BindingKey::MIN_LEN`] bytes.
    pub fn from_text(text: &str) -> Result<BindingKey, BindingKeyError> {
        if text.len() < Self::MIN_LEN {
            return Err(BindingKeyError::TooShort {
                len: text.len(),
                min: Self::MIN_LEN,
            });
        }
        Ok(BindingKey(text.as_bytes().to_vec()))
    }

    /// The key kept in `dir` ([`KEY_FILE`]), created there (with `dir`) on first use: random
    /// bytes, readable by the owner only, written to a temporary file and linked into place, so
    /// that processes starting together agree on one key. A key file that is a symbolic link or
    /// does not hold a key is an error (it is never replaced).
    pub fn load_or_create(dir: &Path) -> io::Result<BindingKey> {
        let root = flowmcp_files::Root::new(dir);
        match read_key_file(&root) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            other => return other,
        }
        let mut bytes = [0_u8; KEY_BYTES];
        rand_core::OsRng
            .try_fill_bytes(&mut bytes)
            .map_err(|e| io::Error::other(format!("no random bytes: {e}")))?;
        // When another process created the key meanwhile, theirs counts.
        root.place_private(Path::new(KEY_FILE), hex(&bytes).as_bytes())
            .map_err(io::Error::from)?;
        read_key_file(&root)
    }

    /// The hex HMAC-SHA256 of the canonical JSON of `values` under this key.
    pub(crate) fn mac(&self, values: &Value) -> String {
        let text = flowmcp_spec::hash::canonical_json(values);
        hex(&hmac_sha256(&self.0, text.as_bytes()))
    }
}

/// Reads the key file in `root`: a regular file (not a link) holding 64 hex digits.
fn read_key_file(root: &flowmcp_files::Root) -> io::Result<BindingKey> {
    let path = root.dir().join(KEY_FILE);
    let bytes = root
        .read_regular_file(Path::new(KEY_FILE), 256)
        .map_err(|e| match e {
            flowmcp_files::PathError::NotRegular { .. } => io::Error::other(format!(
                "{}: the cache key is not a regular file",
                path.display()
            )),
            flowmcp_files::PathError::TooLarge { .. } => bad_key(&path),
            other => other.into(),
        })?;
    let text = String::from_utf8(bytes).map_err(|_| bad_key(&path))?;
    let path = path.as_path();
    let text = text.trim();
    if text.len() != KEY_BYTES * 2 {
        return Err(bad_key(path));
    }
    let bytes = (0..KEY_BYTES)
        .map(|i| u8::from_str_radix(text.get(2 * i..2 * i + 2).unwrap_or("-"), 16))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| bad_key(path))?;
    Ok(BindingKey(bytes))
}

fn bad_key(path: &Path) -> io::Error {
    io::Error::other(format!("{}: not a cache key", path.display()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// HMAC (RFC 2104) over a hash with a 64-byte block (SHA-1, SHA-256): the one HMAC of the
/// runtime (request signing, `auth`, uses it too).
pub(crate) fn hmac(hash: fn(&[u8]) -> Vec<u8>, key: &[u8], message: &[u8]) -> Vec<u8> {
    const BLOCK: usize = 64;
    let mut block = [0_u8; BLOCK];
    if key.len() > BLOCK {
        let k = hash(key);
        block[..k.len()].copy_from_slice(&k);
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
    inner.extend_from_slice(message);
    let mut outer: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
    outer.extend_from_slice(&hash(&inner));
    hash(&outer)
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key`.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mac = hmac(|d| Sha256::digest(d).to_vec(), key, message);
    let mut out = [0_u8; 32];
    out.copy_from_slice(&mac);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        let cases: [(&[u8], &[u8], &str); 3] = [
            (
                &[0x0b; 20],
                b"Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
        ];
        for (key, message, expected) in cases {
            assert_eq!(hex(&hmac_sha256(key, message)), expected);
        }
    }

    #[test]
    fn a_key_file_is_created_once_private_and_never_replaced() {
        let dir = std::env::temp_dir().join(format!("flowmcp-binding-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let first = BindingKey::load_or_create(&dir).unwrap_or_else(|e| panic!("create: {e}"));
        let again = BindingKey::load_or_create(&dir).unwrap_or_else(|e| panic!("load: {e}"));
        assert_eq!(first, again);
        assert_eq!(format!("{first:?}"), "BindingKey(…)");
        let values = serde_json::json!({"API_KEY": "a"});
        assert_eq!(first.mac(&values), again.mac(&values));
        assert_ne!(
            first.mac(&values),
            first.mac(&serde_json::json!({"API_KEY": "b"}))
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.join(KEY_FILE))
                .unwrap_or_else(|e| panic!("meta: {e}"))
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("dir: {e}"))
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        assert_eq!(names, vec![KEY_FILE.to_string()], "no temporary file left");
        fs::write(dir.join(KEY_FILE), "not a key").unwrap_or_else(|e| panic!("write: {e}"));
        assert!(BindingKey::load_or_create(&dir).is_err());
        assert_eq!(
            fs::read_to_string(dir.join(KEY_FILE)).unwrap_or_default(),
            "not a key",
            "a file that is not a key is never replaced"
        );
        let _ = fs::remove_dir_all(&dir);
        assert_eq!(
            BindingKey::from_text("short"),
            Err(BindingKeyError::TooShort { len: 5, min: 16 })
        );
    }
}
