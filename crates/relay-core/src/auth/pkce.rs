//! PKCE with S256 (RFC 7636) and the `state` value, from randomness the driver supplies.
//!
//! The core has no randomness source: the driver hands in a seed from the platform's CSPRNG
//! (`crypto.getRandomValues`), and each authorization attempt derives its verifier and state
//! as SHA-256(seed ‖ purpose ‖ counter), so step-up attempts never reuse a value and the seed
//! itself never leaves this module.

use sha2::{Digest, Sha256};

use super::encode::base64url;

/// Bytes of driver randomness [`Entropy::new`] requires.
pub const SEED_BYTES: usize = 32;

/// Per-attempt secrets derived from the driver's seed.
#[derive(Clone)]
pub struct Entropy {
    seed: [u8; SEED_BYTES],
    counter: u64,
}

impl std::fmt::Debug for Entropy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The seed is a secret: never printed.
        f.debug_struct("Entropy")
            .field("counter", &self.counter)
            .finish_non_exhaustive()
    }
}

impl Entropy {
    /// Entropy from a seed of at least [`SEED_BYTES`] random bytes (longer seeds are hashed
    /// down); `None` when the seed is too short to be trusted.
    pub fn new(seed: &[u8]) -> Option<Entropy> {
        if seed.len() < SEED_BYTES {
            return None;
        }
        let mut fixed = [0u8; SEED_BYTES];
        fixed.copy_from_slice(&Sha256::digest(seed));
        Some(Entropy {
            seed: fixed,
            counter: 0,
        })
    }

    /// 32 fresh bytes for `purpose`, base64url-encoded (43 characters: within PKCE's 43–128
    /// and of the unreserved alphabet it requires).
    pub fn next_token(&mut self, purpose: &str) -> String {
        self.counter += 1;
        let mut hasher = Sha256::new();
        hasher.update(self.seed);
        hasher.update(purpose.as_bytes());
        hasher.update(self.counter.to_be_bytes());
        base64url(&hasher.finalize())
    }
}

/// The S256 code challenge of a verifier: BASE64URL(SHA256(ASCII(verifier))).
pub fn s256_challenge(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}
