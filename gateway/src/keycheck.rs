//! Bounds on key checks, the one thing an unauthenticated caller can make the gateway do at a
//! real cost: each check of a key that is not cached runs argon2 (about 19 MiB and 25 ms of CPU).
//!
//! - **Failed attempts** are rate-limited per key id and per peer address (an IPv6 peer by its
//!   /64) with token buckets: every check takes a token from both buckets before argon2 runs and
//!   gives it back when the key verifies, so only failures use them up. A request that finds a
//!   bucket empty is answered HTTP 429 with `Retry-After` and runs no argon2. Unknown ids are
//!   limited exactly like known ones, so the limits do not tell which ids exist.
//! - **Concurrency**: at most one check per key id and `max_concurrent_key_checks` overall run at
//!   once; a check waits up to [`KEY_CHECK_WAIT`] for its turn, then gets 429 too. A request that
//!   waited behind a check of the same key finds that key cached and runs no argon2 itself.
//! - **Threads and memory**: checks run on `max_concurrent_key_checks` dedicated threads at a
//!   lowered scheduling priority (nice 19 on Linux), so argon2 takes the CPU the request
//!   threads leave. Each thread keeps one argon2 buffer, reused from check to check, so the
//!   argon2 memory is at most `max_concurrent_key_checks` times the hashes' `m` (19 MiB with
//!   the defaults), allocated once and never freed and reallocated per check.
//!
//! Requests whose key is cached never come here: they wait for no permit and no thread.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use std::sync::mpsc::Sender;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::config::Limits;
use crate::keys::Argon2Memory;

/// How long a key check may wait for a free slot before it is answered 429.
pub const KEY_CHECK_WAIT: Duration = Duration::from_secs(2);

/// Most key ids, and most peers, whose failed attempts are tracked at once. When a table is
/// full, entries whose bucket has refilled are dropped; if none has, new ids (or peers) are
/// refused until some have.
const MAX_TRACKED: usize = 65_536;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Token buckets by key: `burst` tokens each, refilled at `per_sec`.
#[derive(Debug)]
struct Buckets<K> {
    map: HashMap<K, (f64, Instant)>,
    burst: f64,
    per_sec: f64,
}

impl<K: Eq + Hash + Clone> Buckets<K> {
    fn new(burst: u32, per_minute: u32) -> Buckets<K> {
        Buckets {
            map: HashMap::new(),
            burst: f64::from(burst),
            per_sec: f64::from(per_minute) / 60.0,
        }
    }

    fn level(&self, (tokens, at): (f64, Instant), now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(at).as_secs_f64();
        (tokens + elapsed * self.per_sec).min(self.burst)
    }

    /// How long until one token is back when the level is `tokens`.
    fn wait_for_one(&self, tokens: f64) -> Duration {
        if self.per_sec <= 0.0 {
            return Duration::from_secs(60);
        }
        Duration::from_secs_f64(((1.0 - tokens) / self.per_sec).max(0.0))
    }

    /// Takes a token for `key`, or says how long until one is available.
    fn take(&mut self, key: &K, now: Instant) -> Result<(), Duration> {
        let tokens = match self.map.get(key) {
            Some(&b) => self.level(b, now),
            None => {
                if self.map.len() >= MAX_TRACKED {
                    let burst = self.burst;
                    let per_sec = self.per_sec;
                    self.map.retain(|_, (t, at)| {
                        *t + now.saturating_duration_since(*at).as_secs_f64() * per_sec < burst
                    });
                    if self.map.len() >= MAX_TRACKED {
                        return Err(Duration::from_secs(1));
                    }
                }
                self.burst
            }
        };
        if tokens < 1.0 {
            self.map.insert(key.clone(), (tokens, now));
            return Err(self.wait_for_one(tokens));
        }
        self.map.insert(key.clone(), (tokens - 1.0, now));
        Ok(())
    }

    /// Gives back a token taken for `key`.
    fn refund(&mut self, key: &K, now: Instant) {
        let burst = self.burst;
        if let Some(b) = self.map.get(key).copied() {
            let level = (self.level(b, now) + 1.0).min(burst);
            self.map.insert(key.clone(), (level, now));
        }
    }
}

/// The peer an attempt is counted against: the address, an IPv6 one cut to its /64 (one host
/// usually has a whole /64), an IPv4-mapped one as IPv4.
fn peer_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// The limits on key checks, shared by all requests.
pub struct KeyChecks {
    overall: Arc<Semaphore>,
    per_id: Mutex<HashMap<String, Arc<Semaphore>>>,
    by_id: Mutex<Buckets<String>>,
    by_peer: Mutex<Buckets<IpAddr>>,
    jobs: Sender<Job>,
    wait: Duration,
}

impl std::fmt::Debug for KeyChecks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyChecks")
            .field("free_slots", &self.overall.available_permits())
            .finish_non_exhaustive()
    }
}

/// A check for a key-check thread, given that thread's argon2 buffer.
type Job = Box<dyn FnOnce(&mut Argon2Memory) + Send>;

/// Starts `n` key-check threads taking jobs from one queue; each ends when the queue closes.
fn start_threads(n: usize) -> Sender<Job> {
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    let rx = Arc::new(Mutex::new(rx));
    for i in 0..n {
        let rx = rx.clone();
        // A thread that cannot be started leaves fewer; with none, checks fail closed (401).
        let _ = std::thread::Builder::new()
            .name(format!("key-check-{i}"))
            .spawn(move || {
                lower_priority();
                let mut memory = Argon2Memory::new();
                loop {
                    let job = lock(&rx).recv();
                    match job {
                        Ok(job) => job(&mut memory),
                        Err(_) => return,
                    }
                }
            });
    }
    tx
}

/// Lowers the calling thread's scheduling priority to nice 19 (Linux: `setpriority` with
/// `who = 0` applies to the calling thread only). Elsewhere it does nothing.
#[allow(unsafe_code)] // one FFI call, explained below
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority takes plain integers and touches no memory of this process.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
    }
}

/// Why a key check was not started: answer HTTP 429 with `Retry-After` of at least this long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooMany(pub Duration);

impl KeyChecks {
    /// Limits from the configuration, waiting up to [`KEY_CHECK_WAIT`] for a free slot.
    pub fn new(limits: &Limits) -> KeyChecks {
        KeyChecks::with_wait(limits, KEY_CHECK_WAIT)
    }

    /// Limits from the configuration with another wait for a free slot.
    pub fn with_wait(limits: &Limits, wait: Duration) -> KeyChecks {
        KeyChecks {
            overall: Arc::new(Semaphore::new(limits.max_concurrent_key_checks)),
            per_id: Mutex::new(HashMap::new()),
            by_id: Mutex::new(Buckets::new(
                limits.failed_key_checks_burst,
                limits.failed_key_checks_per_minute,
            )),
            by_peer: Mutex::new(Buckets::new(
                limits.failed_key_checks_burst,
                limits.failed_key_checks_per_minute,
            )),
            jobs: start_threads(limits.max_concurrent_key_checks),
            wait,
        }
    }

    /// Runs `check` on a key-check thread with that thread's argon2 buffer, holding `ticket`'s
    /// slots until it is done. A `Some` answer counts as a verified key (see
    /// [`Ticket::verified`]). `None` also when no key-check thread is running.
    pub async fn run<T: Send + 'static>(
        &self,
        mut ticket: Ticket,
        check: impl FnOnce(&mut Argon2Memory) -> Option<T> + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |memory| {
            let answer = check(memory);
            if answer.is_some() {
                ticket.verified();
            }
            drop(ticket);
            let _ = tx.send(answer);
        });
        self.jobs.send(job).ok()?;
        rx.await.ok().flatten()
    }

    /// Key ids with a concurrency slot in use or waited for.
    pub fn ids_in_flight(&self) -> usize {
        lock(&self.per_id).len()
    }

    fn refund(&self, id: &str, peer: Option<IpAddr>) {
        let now = Instant::now();
        lock(&self.by_id).refund(&id.to_string(), now);
        if let Some(p) = peer {
            lock(&self.by_peer).refund(&p, now);
        }
    }

    /// Admits one check of a key with id `id` from `peer`: takes a failed-attempt token from
    /// the id's and the peer's buckets, then waits for the id's slot and an overall slot.
    ///
    /// # Errors
    ///
    /// [`TooMany`] when a bucket is empty or no slot came free in time; nothing was taken then.
    pub async fn begin(
        self: &Arc<Self>,
        id: &str,
        peer: Option<IpAddr>,
    ) -> Result<Ticket, TooMany> {
        let peer = peer.map(peer_key);
        let now = Instant::now();
        if let Some(p) = &peer {
            lock(&self.by_peer).take(p, now).map_err(TooMany)?;
        }
        if let Err(wait) = lock(&self.by_id).take(&id.to_string(), now) {
            if let Some(p) = &peer {
                lock(&self.by_peer).refund(p, now);
            }
            return Err(TooMany(wait));
        }
        let slot = {
            let mut map = lock(&self.per_id);
            IdSlot {
                checks: self.clone(),
                id: id.to_string(),
                sem: map
                    .entry(id.to_string())
                    .or_insert_with(|| Arc::new(Semaphore::new(1)))
                    .clone(),
            }
        };
        let permits = tokio::time::timeout(self.wait, async {
            let mine = slot.sem.clone().acquire_owned().await.ok()?;
            let any = self.overall.clone().acquire_owned().await.ok()?;
            Some((mine, any))
        })
        .await
        .ok()
        .flatten();
        let Some((id_permit, overall_permit)) = permits else {
            drop(slot);
            self.refund(id, peer);
            return Err(TooMany(Duration::from_secs(1)));
        };
        Ok(Ticket {
            peer,
            verified: false,
            overall_permit: Some(overall_permit),
            id_permit: Some(id_permit),
            slot,
        })
    }
}

/// One key id's concurrency slot; its table entry goes when no request holds or awaits it.
#[derive(Debug)]
struct IdSlot {
    checks: Arc<KeyChecks>,
    id: String,
    sem: Arc<Semaphore>,
}

impl Drop for IdSlot {
    fn drop(&mut self) {
        let mut map = lock(&self.checks.per_id);
        // Clones are made only under this lock: the table's and this one mean no other user.
        if Arc::strong_count(&self.sem) <= 2 {
            map.remove(&self.id);
        }
    }
}

/// An admitted key check: holds its slots until dropped.
#[derive(Debug)]
pub struct Ticket {
    peer: Option<IpAddr>,
    verified: bool,
    overall_permit: Option<OwnedSemaphorePermit>,
    id_permit: Option<OwnedSemaphorePermit>,
    /// Dropped after the permits (fields drop after `Drop::drop`), so the table entry can go.
    slot: IdSlot,
}

impl Ticket {
    /// Records that the key verified (or was found cached): the attempt does not count as a
    /// failure, and its tokens go back.
    pub fn verified(&mut self) {
        self.verified = true;
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let checks = &self.slot.checks;
        self.overall_permit.take();
        self.id_permit.take();
        if self.verified {
            checks.refund(&self.slot.id, self.peer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(concurrent: usize, burst: u32, per_minute: u32) -> Limits {
        Limits {
            max_concurrent_key_checks: concurrent,
            failed_key_checks_burst: burst,
            failed_key_checks_per_minute: per_minute,
            ..Limits::default()
        }
    }

    #[test]
    fn buckets_refill_refund_and_say_when_to_retry() {
        let mut b: Buckets<&str> = Buckets::new(2, 60);
        let t0 = Instant::now();
        assert!(b.take(&"a", t0).is_ok());
        assert!(b.take(&"a", t0).is_ok());
        let wait = b.take(&"a", t0).unwrap_err();
        assert_eq!(wait, Duration::from_secs(1));
        assert!(b.take(&"b", t0).is_ok(), "buckets are per key");
        let later = t0 + Duration::from_millis(1500);
        assert!(b.take(&"a", later).is_ok(), "refilled by one a second");
        assert!(b.take(&"a", later).is_err());
        b.refund(&"a", later);
        assert!(b.take(&"a", later).is_ok(), "a refunded token is usable");
        let much_later = t0 + Duration::from_secs(3600);
        assert!(b.take(&"a", much_later).is_ok());
        assert!(b.take(&"a", much_later).is_ok());
        assert!(b.take(&"a", much_later).is_err(), "never above the burst");
    }

    #[test]
    fn ipv6_peers_count_by_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(peer_key(a), peer_key(b));
        assert_ne!(peer_key(a), peer_key(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(peer_key(mapped), "10.0.0.1".parse::<IpAddr>().unwrap());
    }

    #[tokio::test]
    async fn failures_are_limited_per_id_and_per_peer_and_successes_give_tokens_back() {
        let checks = Arc::new(KeyChecks::new(&limits(4, 2, 1)));
        let peer: Option<IpAddr> = Some("192.0.2.1".parse().unwrap());
        let other: Option<IpAddr> = Some("192.0.2.2".parse().unwrap());
        // Two failures for id a use up its bucket, from any peer.
        drop(checks.begin("tg_0000000a", peer).await.unwrap());
        drop(checks.begin("tg_0000000a", other).await.unwrap());
        let TooMany(retry) = checks.begin("tg_0000000a", None).await.unwrap_err();
        assert!(retry >= Duration::from_secs(1));
        // A verified check gives its tokens back.
        let mut t = checks.begin("tg_0000000b", other).await.unwrap();
        t.verified();
        drop(t);
        for _ in 0..5 {
            let mut t = checks.begin("tg_0000000b", other).await.unwrap();
            t.verified();
        }
        // Peer: one failure left (a used one); id c and d are fresh.
        drop(checks.begin("tg_0000000c", peer).await.unwrap());
        assert!(
            checks.begin("tg_0000000d", peer).await.is_err(),
            "peer limited"
        );
        assert!(
            checks.begin("tg_0000000d", None).await.is_ok(),
            "a refused attempt took no token from the id"
        );
        assert_eq!(checks.ids_in_flight(), 0, "slots are released");
    }

    #[tokio::test]
    async fn one_check_per_id_and_a_cap_overall_and_the_memory_is_reused() {
        let checks = Arc::new(KeyChecks::with_wait(
            &limits(2, 100, 60),
            Duration::from_millis(20),
        ));
        let a = checks.begin("tg_0000000a", None).await.unwrap();
        assert!(
            checks.begin("tg_0000000a", None).await.is_err(),
            "a second check of the same id waits for the first"
        );
        let b = checks.begin("tg_0000000b", None).await.unwrap();
        assert!(
            checks.begin("tg_0000000c", None).await.is_err(),
            "overall cap"
        );
        drop(a);
        let c = checks.begin("tg_0000000c", None).await.unwrap();
        drop((b, c));
        assert_eq!(checks.ids_in_flight(), 0);

        // One key-check thread: its buffer outlives each check.
        let one = Arc::new(KeyChecks::new(&limits(1, 100, 60)));
        let t = one.begin("tg_0000000a", None).await.unwrap();
        let grown = one
            .run(t, |m| {
                m.resize(8, argon2::Block::default());
                Some(m.len())
            })
            .await;
        assert_eq!(grown, Some(8));
        let t = one.begin("tg_0000000a", None).await.unwrap();
        assert_eq!(one.run(t, |m| Some(m.len())).await, Some(8), "reused");
        // The ticket is held while the check runs: a failed check keeps the token spent.
        let t = one.begin("tg_0000000b", None).await.unwrap();
        assert_eq!(one.run(t, |_| None::<()>).await, None);
        assert_eq!(one.ids_in_flight(), 0);
    }
}
