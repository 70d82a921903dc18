#![allow(
    clippy::indexing_slicing,
    reason = "the envelope is sliced at offsets checked against the input length first, and the decoded tables are validated index by index before the program answers"
)]
//! Compiled bundles: a compiled policy in a versioned, checksummed envelope.
//!
//! ```text
//! offset  size  field
//! 0       8     magic "TOOLGATE"
//! 8       4     format version (u32, little-endian)
//! 12      4     flags (u32, little-endian; 0)
//! 16      8     payload length in bytes (u64, little-endian)
//! 24      32    SHA-256 of the payload
//! 56      n     payload: the compiled engine (postcard), DFAs in regex-automata's own format
//! ```
//!
//! Loading checks the magic, the version, the length and the hash before decoding anything,
//! then validates every index and offset in the payload; what the payload does not carry
//! (aho-corasick automata, lookup maps) is rebuilt. No input makes the loader panic, and an
//! engine is returned only when all of it loaded.
//!
//! # Why the full SHA-256 on every load
//!
//! The stored hash is not a signature: whoever can edit a bundle can recompute it, so it does
//! not protect a bundle from tampering (protect the file, or have the host pin the expected
//! hash). What it gives is identity: every decision carries the engine's `policy_hash`, and a
//! decision log, or a host that pins the hash of a reviewed policy, relies on that hash being
//! the hash of the payload that decides. A cheaper check (a CRC or a non-cryptographic hash
//! over the payload) would still catch corruption, but the SHA-256 in the header would then be
//! a claim the loader never checked: an edited bundle could keep the reviewed policy's hash
//! and decide differently under it. So the loader recomputes the SHA-256 and compares it:
//! 2.7 ms of a 9-10 ms load of the 4.9 MB bundle of the wide 10,000-rule policy
//! (`cargo run --release --example compile_load -- hash wide`). Hashing on a second thread
//! while decoding was tried; on a busy two-core machine it gained nothing measurable, and it is
//! not done.

use crate::program::Program;
use sha2::{Digest, Sha256};
use std::fmt;

/// The first eight bytes of every bundle.
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap();
/// assert_eq!(&engine.to_bundle()[..8], toolgate::bundle::MAGIC);
/// ```
pub const MAGIC: &[u8; 8] = b"TOOLGATE";
/// The bundle format this build writes and reads.
///
/// # Example
///
/// ```
/// let bytes = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap().to_bundle();
/// let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
/// assert_eq!(version, toolgate::bundle::FORMAT_VERSION);
/// ```
pub const FORMAT_VERSION: u32 = 6;
const HEADER_LEN: usize = 56;

/// Why a bundle could not be loaded. `code()` is stable (`toolgate::bundle::*`).
///
/// # Example
///
/// ```
/// let mut bytes = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap().to_bundle();
/// bytes[8] = 99; // another format version
/// let err = toolgate::Engine::from_bundle(&bytes).unwrap_err();
/// assert_eq!(err.code(), "toolgate::bundle::version_mismatch");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleError {
    kind: BundleErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum BundleErrorKind {
    NotABundle,
    Truncated { expected: u64, found: u64 },
    Version { found: u32 },
    Flags { found: u32 },
    Checksum,
    Malformed(String),
    Inconsistent(String),
}

impl BundleError {
    /// The stable code of this kind of failure.
    ///
    /// ```
    /// let err = toolgate::Engine::from_bundle(b"not a bundle").unwrap_err();
    /// assert_eq!(err.code(), "toolgate::bundle::not_a_bundle");
    /// ```
    pub fn code(&self) -> &'static str {
        match self.kind {
            BundleErrorKind::NotABundle => "toolgate::bundle::not_a_bundle",
            BundleErrorKind::Truncated { .. } => "toolgate::bundle::truncated",
            BundleErrorKind::Version { .. } => "toolgate::bundle::version_mismatch",
            BundleErrorKind::Flags { .. } => "toolgate::bundle::unsupported_flags",
            BundleErrorKind::Checksum => "toolgate::bundle::checksum_mismatch",
            BundleErrorKind::Malformed(_) => "toolgate::bundle::malformed",
            BundleErrorKind::Inconsistent(_) => "toolgate::bundle::inconsistent",
        }
    }
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            BundleErrorKind::NotABundle => {
                write!(f, "not a toolgate bundle (it does not start with the magic bytes `TOOLGATE`)")
            }
            BundleErrorKind::Truncated { expected, found } => write!(
                f,
                "bundle is truncated or padded: the header announces {expected} payload bytes, the file holds {found}"
            ),
            BundleErrorKind::Version { found } => write!(
                f,
                "bundle format version {found} is not supported; this toolgate reads version {FORMAT_VERSION} (recompile the policy with this toolgate)"
            ),
            BundleErrorKind::Flags { found } => write!(f, "bundle has unknown flags {found:#x}"),
            BundleErrorKind::Checksum => write!(f, "bundle checksum mismatch: the payload is corrupt"),
            BundleErrorKind::Malformed(m) => write!(f, "bundle payload is malformed: {m}"),
            BundleErrorKind::Inconsistent(m) => write!(f, "bundle payload is inconsistent: {m}"),
        }
    }
}

impl std::error::Error for BundleError {}

fn err(kind: BundleErrorKind) -> BundleError {
    BundleError { kind }
}

/// True when `bytes` start like a bundle (used to tell bundles from policy text).
///
/// # Example
///
/// ```
/// use toolgate::bundle::looks_like_bundle;
/// let bytes = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap().to_bundle();
/// assert!(looks_like_bundle(&bytes));
/// assert!(!looks_like_bundle(b"agent a {}"));
/// ```
pub fn looks_like_bundle(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The payload of a program: the postcard encoding of the compiled tables.
pub(crate) fn payload(program: &Program) -> Vec<u8> {
    // Sized first, then written into a buffer of that size: grown by doubling, the buffer of
    // a large program ends up to twice its size, and the last doubling holds both copies.
    let size = postcard::experimental::serialized_size(program).unwrap_or(0);
    // Serializing plain data into a Vec cannot fail; an empty payload would fail to load.
    postcard::to_extend(program, Vec::with_capacity(size)).unwrap_or_default()
}

/// SHA-256 of a payload, in lowercase hex.
pub(crate) fn payload_hash(payload: &[u8]) -> String {
    hex(&Sha256::digest(payload))
}

/// Lowercase hex of a digest.
fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes a program as a bundle.
pub(crate) fn encode(program: &Program) -> Vec<u8> {
    let payload = payload(program);
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&payload));
    out.extend_from_slice(&payload);
    out
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

/// Reads a bundle: envelope checks, decoding, validation, rebuilding. Returns the program
/// and the payload's SHA-256 in hex (the policy hash).
pub(crate) fn decode(bytes: &[u8]) -> Result<(Program, String), BundleError> {
    if bytes.len() < MAGIC.len() || !looks_like_bundle(bytes) {
        return Err(err(BundleErrorKind::NotABundle));
    }
    if bytes.len() < HEADER_LEN {
        return Err(err(BundleErrorKind::Malformed(format!(
            "the file holds {} bytes, fewer than the {HEADER_LEN}-byte header",
            bytes.len()
        ))));
    }
    let version = u32_at(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(err(BundleErrorKind::Version { found: version }));
    }
    let flags = u32_at(bytes, 12);
    if flags != 0 {
        return Err(err(BundleErrorKind::Flags { found: flags }));
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[16..24]);
    let expected = u64::from_le_bytes(len);
    let payload = &bytes[HEADER_LEN..];
    if expected != payload.len() as u64 {
        return Err(err(BundleErrorKind::Truncated {
            expected,
            found: payload.len() as u64,
        }));
    }
    let digest = Sha256::digest(payload);
    if digest.as_slice() != &bytes[24..56] {
        return Err(err(BundleErrorKind::Checksum));
    }
    Ok((decode_payload(payload)?, hex(&digest)))
}

/// Decodes, validates and rebuilds a program from a payload.
pub(crate) fn decode_payload(payload: &[u8]) -> Result<Program, BundleError> {
    decode_payload_reusing(payload, Vec::new())
}

/// [`decode_payload`] for the payload of a program just compiled: the fallback regexes taken
/// from it ([`Program::take_fallbacks`]) are reused rather than built again.
pub(crate) fn decode_payload_reusing(
    payload: &[u8],
    fallbacks: Vec<(usize, [Option<crate::program::index::BuiltFallback>; 2])>,
) -> Result<Program, BundleError> {
    let mut program: Program = postcard::from_bytes(payload)
        .map_err(|e| err(BundleErrorKind::Malformed(e.to_string())))?;
    program.reuse_fallbacks(fallbacks);
    program
        .validate_and_rebuild()
        .map_err(|m| err(BundleErrorKind::Inconsistent(m.to_string())))?;
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> crate::Engine {
        crate::load::engine_from_str(
            "b.policy",
            "tool t(p) needs fs:read\nagent a { grant fs:* allow t where p matches \"/x/**\" }",
        )
        .unwrap()
    }

    #[test]
    fn round_trip_keeps_the_hash() {
        let e = engine();
        let bytes = encode(&e.program);
        let (_, hash) = decode(&bytes).unwrap();
        assert_eq!(hash, e.policy_hash());
    }

    #[test]
    fn every_envelope_failure_has_its_code() {
        let good = encode(&engine().program);
        let code = |b: &[u8]| decode(b).unwrap_err().code();
        assert_eq!(code(b"hello"), "toolgate::bundle::not_a_bundle");
        assert_eq!(code(&good[..30]), "toolgate::bundle::malformed");
        assert_eq!(code(&good[..good.len() - 1]), "toolgate::bundle::truncated");
        let mut v = good.clone();
        v[8] = 9;
        assert_eq!(code(&v), "toolgate::bundle::version_mismatch");
        assert!(decode(&v)
            .unwrap_err()
            .to_string()
            .contains(&format!("reads version {FORMAT_VERSION}")));
        let mut c = good.clone();
        let last = c.len() - 1;
        c[last] ^= 1;
        assert_eq!(code(&c), "toolgate::bundle::checksum_mismatch");
    }

    #[test]
    fn truncation_at_every_length_is_refused() {
        let good = encode(&engine().program);
        for n in 0..good.len() {
            assert!(decode(&good[..n]).is_err(), "{n} bytes loaded");
        }
    }
}
