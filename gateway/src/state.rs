//! The state every request reads: the engine and the key index, each swapped atomically on
//! reload, and the cache of successful key verifications.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use arc_swap::ArcSwap;
use serde_json::json;
use sha2::{Digest, Sha256};
use toolgate::Engine;

use crate::config::Config;
use crate::keycheck::KeyChecks;
use crate::keys::{Argon2Memory, Caller, KeyFile, KeyIndex};
use crate::log::{event, DecisionLog};

/// Most cached verifications kept; the cache is emptied when it is full.
const CACHE_CAP: usize = 10_000;

/// The live keys and the verifications cached for them, behind one lock so that a reload and
/// the end of a verification are ordered.
struct Keys {
    /// Bumped by every reload that replaces `index`.
    generation: u64,
    index: Arc<KeyIndex>,
    cache: HashMap<[u8; 32], Caller>,
}

/// Shared gateway state.
pub struct Shared {
    /// The configuration.
    pub config: Config,
    engine: ArcSwap<Engine>,
    keys: Mutex<Keys>,
    cache_salt: [u8; 32],
    /// The limits on argon2 key checks.
    pub key_checks: Arc<KeyChecks>,
    /// The decision log.
    pub decisions: DecisionLog,
}

/// Loads the engine the configuration names.
///
/// # Errors
///
/// The loader's rendered report.
pub fn load_engine(path: &Path) -> Result<Engine, String> {
    toolgate::load::engine_from_paths(&[path.to_path_buf()])
        .map(|l| l.engine)
        .map_err(|e| e.to_string())
}

/// Loads the key index from the key file.
///
/// # Errors
///
/// The key file's problem.
pub fn load_keys(path: &Path) -> Result<KeyIndex, String> {
    KeyFile::read(path)
        .map(|f| KeyIndex::new(&f))
        .map_err(|e| e.to_string())
}

impl Shared {
    /// Loads the policy and the keys a configuration names.
    ///
    /// # Errors
    ///
    /// Why the policy, the keys or the decision log could not be loaded.
    pub fn load(config: Config, decisions: DecisionLog) -> Result<Shared, String> {
        let engine = load_engine(&config.policy)?;
        let keys = load_keys(&config.keys)?;
        Ok(Shared::new(config, engine, keys, decisions))
    }

    /// State from parts already loaded.
    pub fn new(config: Config, engine: Engine, keys: KeyIndex, decisions: DecisionLog) -> Shared {
        let mut cache_salt = [0u8; 32];
        // Without randomness the salt stays zero: the cache is then keyed by a plain SHA-256.
        let _ = getrandom::fill(&mut cache_salt);
        // The hash unknown key ids are verified against, made now rather than on the first
        // such request (which would then take twice as long as a wrong secret).
        let _ = crate::keys::dummy_hash();
        Shared {
            key_checks: Arc::new(KeyChecks::new(&config.limits)),
            config,
            engine: ArcSwap::from_pointee(engine),
            keys: Mutex::new(Keys {
                generation: 0,
                index: Arc::new(keys),
                cache: HashMap::new(),
            }),
            cache_salt,
            decisions,
        }
    }

    /// The current engine; a call keeps the one it started with across a reload.
    pub fn engine(&self) -> Arc<Engine> {
        self.engine.load_full()
    }

    /// Replaces the engine.
    pub fn swap_engine(&self, engine: Engine) {
        self.engine.store(Arc::new(engine));
    }

    fn cache_key(&self, presented: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.cache_salt);
        h.update(presented.as_bytes());
        h.finalize().into()
    }

    /// The key state; a poisoned lock is taken over (nothing panics while holding it), so a
    /// reload can never be kept from replacing the keys.
    fn keys(&self) -> MutexGuard<'_, Keys> {
        self.keys
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The caller a key stands for, from the cache when this key verified before.
    pub fn cached_caller(&self, presented: &str) -> Option<Caller> {
        let k = self.cache_key(presented);
        self.keys().cache.get(&k).cloned()
    }

    /// Verifies a key with argon2 (slow: call it off the async threads) and caches success.
    pub fn verify_key(&self, presented: &str) -> Option<Caller> {
        self.verify_key_with(presented, &mut Vec::new())
    }

    /// [`Shared::verify_key`] with argon2 computing in `memory`.
    ///
    /// The verification reads the key set current when it starts. If a reload replaces the set
    /// while argon2 runs, the success stands only when the new set holds the same key unchanged;
    /// otherwise (revoked, removed, rehashed) it is refused and not cached. The check and the
    /// cache insert happen under the lock a reload takes to swap the set and clear the cache,
    /// so once a reload that reads a revocation returns, no verification that started before
    /// it can succeed or put the key back in the cache.
    pub fn verify_key_with(&self, presented: &str, memory: &mut Argon2Memory) -> Option<Caller> {
        let (generation, index) = {
            let k = self.keys();
            (k.generation, k.index.clone())
        };
        let caller = index.verify_with(presented, memory)?;
        let mut k = self.keys();
        if k.generation != generation && !k.index.same_entry(&index, &caller.key_id) {
            return None;
        }
        if k.cache.len() >= CACHE_CAP {
            k.cache.clear();
        }
        k.cache.insert(self.cache_key(presented), caller.clone());
        Some(caller)
    }

    /// How many argon2 verifications the current key set has run.
    pub fn argon2_runs(&self) -> u64 {
        self.keys().index.argon2_runs()
    }

    /// Rebuilds the engine and the key index from their files; each that fails to load keeps
    /// its old value and the failure is logged. Returns true when both loaded.
    pub fn reload(&self, why: &str) -> bool {
        let mut ok = true;
        match load_engine(&self.config.policy) {
            Ok(engine) => {
                let hash = engine.policy_hash().to_string();
                self.swap_engine(engine);
                event(
                    "reload",
                    json!({"what": "policy", "ok": true, "why": why, "policy_hash": hash}),
                );
            }
            Err(e) => {
                ok = false;
                event(
                    "reload",
                    json!({"what": "policy", "ok": false, "why": why, "error": e, "kept_policy_hash": self.engine().policy_hash()}),
                );
            }
        }
        match load_keys(&self.config.keys) {
            Ok(keys) => {
                let live = keys.len();
                {
                    let mut k = self.keys();
                    k.index = Arc::new(keys);
                    k.generation += 1;
                    k.cache.clear();
                }
                event(
                    "reload",
                    json!({"what": "keys", "ok": true, "why": why, "live_keys": live}),
                );
            }
            Err(e) => {
                ok = false;
                event(
                    "reload",
                    json!({"what": "keys", "ok": false, "why": why, "error": e}),
                );
            }
        }
        ok
    }
}

/// A cheap fingerprint of the files a reload reads: each file's path, length and mtime.
pub fn fingerprint(paths: &[PathBuf]) -> Vec<(PathBuf, u64, Option<SystemTime>)> {
    let mut out = Vec::new();
    for p in paths {
        let mut push = |p: &Path| {
            let meta = std::fs::metadata(p).ok();
            out.push((
                p.to_path_buf(),
                meta.as_ref().map_or(0, |m| m.len()),
                meta.and_then(|m| m.modified().ok()),
            ));
        };
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            entries.sort();
            for e in entries {
                push(&e);
            }
        } else {
            push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LogTarget;
    use crate::keys::KeyEntry;
    use argon2::password_hash::PasswordHasher;
    use argon2::{Algorithm, Argon2, Params, Version};
    use std::sync::Barrier;

    /// A key file with one key hashed with cheap argon2 parameters (1 MiB, one pass), so that
    /// many verifications fit in a test; `revoked` marks it revoked.
    fn key_file(key: &str, revoked: bool) -> KeyFile {
        let params = Params::new(1024, 1, 1, None).unwrap();
        let hash = Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
            .hash_password(key.as_bytes())
            .unwrap()
            .to_string();
        KeyFile {
            version: 1,
            keys: vec![KeyEntry {
                id: key[..11].to_string(),
                agent: "a".into(),
                hash,
                created: "t".into(),
                revoked: revoked.then(|| "t".to_string()),
            }],
        }
    }

    fn shared(dir: &Path) -> Shared {
        std::fs::write(dir.join("p.policy"), "tool t(x)\nagent a { allow t }\n").unwrap();
        let config = Config::parse(
            &dir.join("gateway.toml"),
            "policy = \"p.policy\"\nkeys = \"keys.json\"\n[log]\ndecisions = \"off\"\n",
        )
        .unwrap();
        let log = DecisionLog::open(&LogTarget::Off, false, 0).unwrap();
        Shared::load(config, log).unwrap()
    }

    /// Verifications race a reload that reads a revocation: threads start verifying the live
    /// key, and the reload runs while their argon2 computations are in flight. Once the reload
    /// has returned and the threads are done, the key must be neither cached nor accepted.
    #[test]
    fn a_revocation_is_final_once_the_reload_that_reads_it_returns() {
        const THREADS: usize = 4;
        const ROUNDS: usize = 50;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        let key = format!("tg_0123abcd_{}", "5".repeat(64));
        let live = key_file(&key, false);
        let revoked = key_file(&key, true);
        let shared = Arc::new(shared(dir.path()));
        for round in 0..ROUNDS {
            live.write(&path).unwrap();
            assert!(shared.reload("test"));
            // The file on disk says revoked; the key set in memory still holds the key.
            revoked.write(&path).unwrap();
            let barrier = Arc::new(Barrier::new(THREADS + 1));
            let threads: Vec<_> = (0..THREADS)
                .map(|_| {
                    let (shared, barrier, key) = (shared.clone(), barrier.clone(), key.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        shared.verify_key(&key).is_some()
                    })
                })
                .collect();
            barrier.wait();
            assert!(shared.reload("test"));
            // The reload has returned: from here on the key must not work.
            let after = shared.cached_caller(&key).is_some() || shared.verify_key(&key).is_some();
            for t in threads {
                t.join().unwrap();
            }
            assert!(!after, "round {round}: accepted right after the reload");
            assert!(
                shared.cached_caller(&key).is_none(),
                "round {round}: a verification in flight during the reload cached the revoked key"
            );
            assert!(shared.verify_key(&key).is_none(), "round {round}");
        }
    }
}
