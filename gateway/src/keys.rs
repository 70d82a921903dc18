//! The key file: agents' bearer keys stored only as argon2id PHC hashes.
//!
//! A key reads `tg_<id>_<secret>`: `tg_<id>` (8 hex digits) is a public display id used to find
//! the one candidate hash; the 64-hex-digit secret is shown once by `keys add` and never stored.
//! The file is JSON, rewritten atomically (temporary file, fsync, rename) with mode 0600.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use argon2::password_hash::phc::{Output, PasswordHash};
use argon2::password_hash::PasswordHasher;
use argon2::{Algorithm, Argon2, Block, Params, Version};
use serde::{Deserialize, Serialize};

/// The prefix every key and key id starts with.
pub const KEY_PREFIX: &str = "tg_";
const ID_HEX: usize = 8;
const SECRET_HEX: usize = 64;

/// One stored key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyEntry {
    /// The public display id, `tg_` and 8 hex digits.
    pub id: String,
    /// The agent the key authenticates as.
    pub agent: String,
    /// The argon2id PHC string of the whole key.
    pub hash: String,
    /// When the key was made (RFC 3339, UTC).
    pub created: String,
    /// When the key was revoked, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked: Option<String>,
}

/// The key file's contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyFile {
    /// The format version (1).
    pub version: u32,
    /// Every key ever added, revoked ones included.
    pub keys: Vec<KeyEntry>,
}

/// A key-file problem, worded for the operator (never containing a key or a hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(pub String);

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyError {}

/// A freshly made key: the only moment the secret exists outside the caller's hands.
#[derive(Debug)]
pub struct NewKey {
    /// The full key to hand to the agent's operator.
    pub key: String,
    /// The stored entry.
    pub entry: KeyEntry,
}

impl KeyFile {
    /// Reads a key file; a missing file is an empty one.
    ///
    /// # Errors
    ///
    /// A [`KeyError`] when the file cannot be read or is not a key file.
    pub fn read(path: &Path) -> Result<KeyFile, KeyError> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let file: KeyFile = serde_json::from_str(&text).map_err(|e| {
                    KeyError(format!(
                        "`{}` is not a toolgate key file: {e}",
                        path.display()
                    ))
                })?;
                if file.version != 1 {
                    return Err(KeyError(format!(
                        "`{}` has key file version {}, this build reads version 1",
                        path.display(),
                        file.version
                    )));
                }
                Ok(file)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KeyFile {
                version: 1,
                keys: Vec::new(),
            }),
            Err(e) => Err(KeyError(format!("cannot read `{}`: {e}", path.display()))),
        }
    }

    /// Writes the file atomically with mode 0600.
    ///
    /// # Errors
    ///
    /// A [`KeyError`] when the folder is not writable.
    pub fn write(&self, path: &Path) -> Result<(), KeyError> {
        let io = |e: std::io::Error| KeyError(format!("cannot write `{}`: {e}", path.display()));
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "keys".into());
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let mut text = serde_json::to_string_pretty(self).map_err(|e| KeyError(e.to_string()))?;
        text.push('\n');
        let result = (|| {
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create(true).truncate(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                opts.mode(0o600);
            }
            let mut f = opts.open(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result.map_err(io)
    }

    /// Makes a new key for `agent` and stores its hash.
    ///
    /// # Errors
    ///
    /// A [`KeyError`] when the system has no randomness or hashing fails.
    pub fn add(&mut self, agent: &str, created: String) -> Result<NewKey, KeyError> {
        if agent.is_empty() {
            return Err(KeyError("the agent name must not be empty".into()));
        }
        let mut bytes = [0u8; ID_HEX / 2 + SECRET_HEX / 2];
        loop {
            getrandom::fill(&mut bytes)
                .map_err(|e| KeyError(format!("no system randomness: {e}")))?;
            let id = format!("{KEY_PREFIX}{}", hex(&bytes[..ID_HEX / 2]));
            if self.keys.iter().all(|k| k.id != id) {
                let key = format!("{id}_{}", hex(&bytes[ID_HEX / 2..]));
                let hash = Argon2::default()
                    .hash_password(key.as_bytes())
                    .map_err(|e| KeyError(format!("cannot hash the key: {e}")))?
                    .to_string();
                let entry = KeyEntry {
                    id,
                    agent: agent.to_string(),
                    hash,
                    created,
                    revoked: None,
                };
                self.keys.push(entry.clone());
                return Ok(NewKey { key, entry });
            }
        }
    }

    /// Marks the key with this id revoked.
    ///
    /// # Errors
    ///
    /// A [`KeyError`] when no key has that id, or it is already revoked.
    pub fn revoke(&mut self, id: &str, when: String) -> Result<&KeyEntry, KeyError> {
        let entry = self
            .keys
            .iter_mut()
            .find(|k| k.id == id)
            .ok_or_else(|| KeyError(format!("no key has id `{id}` (see `keys list`)")))?;
        if entry.revoked.is_some() {
            return Err(KeyError(format!("key `{id}` is already revoked")));
        }
        entry.revoked = Some(when);
        Ok(entry)
    }
}

/// The live keys indexed by id, for authentication.
#[derive(Debug, Default)]
pub struct KeyIndex {
    by_id: HashMap<String, (String, String)>,
    argon2_runs: AtomicU64,
}

/// Memory for one argon2 computation (1 KiB blocks), kept between verifications so that a
/// verification allocates nothing once its buffer has grown to the hashes' `m` parameter.
pub type Argon2Memory = Vec<Block>;

/// The argon2id hash that an unknown, revoked or unparsable key id is verified against, so that
/// such a request costs what a wrong secret for a live id costs. Made once, with the parameters
/// `keys add` uses, from a random secret no caller can present.
pub fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        let mut secret = [0u8; 32];
        // Without randomness the secret stays zero: it is still never a well-formed key.
        let _ = getrandom::fill(&mut secret);
        Argon2::default()
            .hash_password(&secret)
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

/// Checks `presented` against one PHC string with argon2 in `memory` (grown as needed).
/// False for a mismatch and for a hash that cannot be parsed or computed.
fn verify_phc(presented: &[u8], phc: &str, memory: &mut Argon2Memory) -> bool {
    let Ok(hash) = PasswordHash::new(phc) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (&hash.salt, &hash.hash) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(hash.algorithm.as_str()) else {
        return false;
    };
    let version = match hash.version.map(Version::try_from) {
        None => Version::default(),
        Some(Ok(v)) => v,
        Some(Err(_)) => return false,
    };
    let Ok(params) = Params::try_from(&hash) else {
        return false;
    };
    let blocks = params.block_count();
    if memory.len() < blocks {
        memory.resize(blocks, Block::default());
    }
    let mut out = vec![0u8; expected.len()];
    let argon2 = Argon2::new(algorithm, version, params);
    if argon2
        .hash_password_into_with_memory(presented, salt, &mut out, &mut memory[..])
        .is_err()
    {
        return false;
    }
    // `Output`'s equality is constant-time.
    Output::new(&out).is_ok_and(|computed| computed == *expected)
}

/// Who a key authenticated as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The agent the key belongs to.
    pub agent: String,
    /// The key's public display id.
    pub key_id: String,
}

impl KeyIndex {
    /// Indexes the keys of a file that are not revoked.
    pub fn new(file: &KeyFile) -> KeyIndex {
        let by_id = file
            .keys
            .iter()
            .filter(|k| k.revoked.is_none())
            .map(|k| (k.id.clone(), (k.agent.clone(), k.hash.clone())))
            .collect();
        KeyIndex {
            by_id,
            argon2_runs: AtomicU64::new(0),
        }
    }

    /// How many argon2 verifications this index has run (against a stored or the dummy hash).
    pub fn argon2_runs(&self) -> u64 {
        self.argon2_runs.load(Ordering::Relaxed)
    }

    /// True when `id` has the same agent and hash here as in `other` (or is live in neither).
    pub fn same_entry(&self, other: &KeyIndex, id: &str) -> bool {
        self.by_id.get(id) == other.by_id.get(id)
    }

    /// How many live keys there are.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// True when no key is live.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Verifies a presented key with fresh argon2 memory; see [`KeyIndex::verify_with`].
    pub fn verify(&self, presented: &str) -> Option<Caller> {
        self.verify_with(presented, &mut Vec::new())
    }

    /// Verifies a presented key: its id picks the single candidate hash, which argon2 checks
    /// in constant time, in `memory`. `None` for a malformed, unknown, revoked or wrong key.
    /// A well-formed key whose id is unknown or revoked is checked against [`dummy_hash`], so
    /// that it costs what a wrong secret does and the timing does not tell which ids exist;
    /// only a malformed key, which says nothing about the ids, is refused without argon2.
    pub fn verify_with(&self, presented: &str, memory: &mut Argon2Memory) -> Option<Caller> {
        let id = key_id(presented)?;
        let entry = self.by_id.get(id);
        let phc: &str = match entry {
            Some((_, phc)) => phc,
            None => dummy_hash(),
        };
        self.argon2_runs.fetch_add(1, Ordering::Relaxed);
        let ok = verify_phc(presented.as_bytes(), phc, memory);
        match entry {
            Some((agent, _)) if ok => Some(Caller {
                agent: agent.clone(),
                key_id: id.to_string(),
            }),
            _ => None,
        }
    }
}

/// The id part of a well-formed key (`tg_` + 8 hex digits), or `None`.
pub fn key_id(presented: &str) -> Option<&str> {
    let b = presented.as_bytes();
    let id_len = KEY_PREFIX.len() + ID_HEX;
    let well_formed = b.len() == id_len + 1 + SECRET_HEX
        && presented.starts_with(KEY_PREFIX)
        && b[id_len] == b'_'
        && b[KEY_PREFIX.len()..id_len]
            .iter()
            .chain(&b[id_len + 1..])
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase());
    well_formed.then(|| &presented[..id_len])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_verify_revoke_round_trip_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        let mut file = KeyFile::read(&path).unwrap();
        let new = file.add("bot", "2026-12-01T00:00:00.000Z".into()).unwrap();
        assert!(new.key.starts_with(&new.entry.id));
        assert!(new.entry.hash.starts_with("$argon2id$"));
        file.write(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains(&new.key[new.entry.id.len()..]),
            "secret stored"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let back = KeyFile::read(&path).unwrap();
        assert_eq!(back, file);
        let index = KeyIndex::new(&back);
        let caller = index.verify(&new.key).unwrap();
        assert_eq!(
            (caller.agent.as_str(), caller.key_id.as_str()),
            ("bot", new.entry.id.as_str())
        );
        let mut wrong = new.key.clone();
        let last = if wrong.ends_with('0') { "1" } else { "0" };
        wrong.replace_range(wrong.len() - 1.., last);
        assert!(index.verify(&wrong).is_none());
        assert!(index.verify("tg_nothex").is_none());
        let mut revoked = back.clone();
        revoked.revoke(&new.entry.id, "later".into()).unwrap();
        assert!(revoked.revoke(&new.entry.id, "again".into()).is_err());
        assert!(KeyIndex::new(&revoked).verify(&new.key).is_none());
    }

    #[test]
    fn unknown_and_revoked_ids_cost_an_argon2_verification_like_a_wrong_secret() {
        let mut file = KeyFile::default();
        let live = file.add("bot", "t".into()).unwrap();
        let gone = file.add("bot", "t".into()).unwrap();
        file.revoke(&gone.entry.id, "t".into()).unwrap();
        let index = KeyIndex::new(&file);
        let dummy = PasswordHash::new(dummy_hash()).unwrap();
        let stored = PasswordHash::new(&live.entry.hash).unwrap();
        assert_eq!(
            (dummy.algorithm, dummy.version, &dummy.params),
            (stored.algorithm, stored.version, &stored.params),
            "the dummy hash has other argon2 parameters than a stored key"
        );
        let mut wrong = live.key.clone();
        let last = if wrong.ends_with('0') { "1" } else { "0" };
        wrong.replace_range(wrong.len() - 1.., last);
        let unknown = format!("tg_00000000_{}", &live.key[12..]);
        let mut memory = Vec::new();
        for (presented, name) in [
            (wrong.as_str(), "wrong secret"),
            (unknown.as_str(), "unknown id"),
            (gone.key.as_str(), "revoked id"),
        ] {
            let before = index.argon2_runs();
            assert!(
                index.verify_with(presented, &mut memory).is_none(),
                "{name}"
            );
            assert_eq!(index.argon2_runs(), before + 1, "{name}: no argon2 run");
        }
        assert!(index.verify_with(&live.key, &mut memory).is_some());
        assert_eq!(
            memory.len(),
            Params::DEFAULT_M_COST as usize,
            "memory reused"
        );
        let before = index.argon2_runs();
        assert!(index.verify_with("tg_nothex", &mut memory).is_none());
        assert_eq!(
            index.argon2_runs(),
            before,
            "a malformed key needs no argon2"
        );
    }

    #[test]
    fn key_id_accepts_only_the_exact_shape() {
        let key = format!("tg_0123abcd_{}", "f".repeat(64));
        assert_eq!(key_id(&key), Some("tg_0123abcd"));
        assert_eq!(key_id(&key.to_uppercase()), None);
        assert_eq!(key_id(&key[..key.len() - 1]), None);
        assert_eq!(key_id(&format!("{key}0")), None);
        assert_eq!(key_id("tg_é"), None);
        assert_eq!(key_id(""), None);
    }
}
