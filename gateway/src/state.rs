//! The state every request reads: the engine and the key index, each swapped atomically on
//! reload, and the cache of successful key verifications.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use arc_swap::ArcSwap;
use serde_json::json;
use sha2::{Digest, Sha256};
use toolgate::Engine;

use crate::config::Config;
use crate::keys::{Caller, KeyFile, KeyIndex};
use crate::log::{event, DecisionLog};

/// Most cached verifications kept; the cache is emptied when it is full.
const CACHE_CAP: usize = 10_000;

/// Shared gateway state.
pub struct Shared {
    /// The configuration.
    pub config: Config,
    engine: ArcSwap<Engine>,
    keys: ArcSwap<KeyIndex>,
    cache: Mutex<HashMap<[u8; 32], Caller>>,
    cache_salt: [u8; 32],
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
            config,
            engine: ArcSwap::from_pointee(engine),
            keys: ArcSwap::from_pointee(keys),
            cache: Mutex::new(HashMap::new()),
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

    /// The caller a key stands for, from the cache when this key verified before.
    pub fn cached_caller(&self, presented: &str) -> Option<Caller> {
        let k = self.cache_key(presented);
        self.cache.lock().ok()?.get(&k).cloned()
    }

    /// Verifies a key with argon2 (slow: call it off the async threads) and caches success.
    pub fn verify_key(&self, presented: &str) -> Option<Caller> {
        let keys = self.keys.load_full();
        let caller = keys.verify(presented)?;
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= CACHE_CAP {
                cache.clear();
            }
            cache.insert(self.cache_key(presented), caller.clone());
        }
        Some(caller)
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
                self.keys.store(Arc::new(keys));
                if let Ok(mut cache) = self.cache.lock() {
                    cache.clear();
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
