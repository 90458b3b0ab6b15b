//! Retry policy: exponential backoff with jitter, for transient failures of requests that are
//! safe to repeat (seed 003). The randomness is an input: [`Jitter`] is a seeded generator, so
//! every delay is reproducible in tests.

/// How transient failures of idempotent requests are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts in all, the first one included (seed 003: the first try plus 2 retries).
    pub max_attempts: u32,
    /// Delay before the first retry, doubled for each further one.
    pub base_delay_ms: u64,
    /// Upper bound of one delay.
    pub max_delay_ms: u64,
    /// No retry starts later than this after the request was first submitted.
    pub budget_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay_ms: 500,
            max_delay_ms: 8_000,
            budget_ms: 30_000,
        }
    }
}

impl RetryPolicy {
    /// A policy with the given attempts and delays.
    pub fn new(max_attempts: u32, base_delay_ms: u64, max_delay_ms: u64, budget_ms: u64) -> Self {
        RetryPolicy {
            max_attempts,
            base_delay_ms,
            max_delay_ms,
            budget_ms,
        }
    }

    /// The delay before attempt `next_attempt` (2 for the first retry). `jitter` in [0, 1)
    /// spreads the delay over its upper half ("equal jitter"), so clients that failed together
    /// do not retry together, while the delay still grows.
    pub fn delay_ms(&self, next_attempt: u32, jitter: f64) -> u64 {
        let exponent = next_attempt.saturating_sub(2).min(32);
        let full = self
            .base_delay_ms
            .saturating_mul(1u64 << exponent)
            .min(self.max_delay_ms);
        let half = full / 2;
        half + (half as f64 * jitter.clamp(0.0, 1.0)) as u64
    }

    /// When attempt `next_attempt` may start, or `None` if the policy says stop. `retry_after_ms`
    /// is a server's `Retry-After`, which replaces the computed delay.
    pub fn next_attempt_at(
        &self,
        next_attempt: u32,
        first_try_at: u64,
        now_ms: u64,
        jitter: f64,
        retry_after_ms: Option<u64>,
    ) -> Option<u64> {
        if next_attempt > self.max_attempts {
            return None;
        }
        let at = now_ms + retry_after_ms.unwrap_or_else(|| self.delay_ms(next_attempt, jitter));
        (at <= first_try_at.saturating_add(self.budget_ms)).then_some(at)
    }
}

/// A small seeded generator (xorshift64*) for jitter. Not for anything secret.
#[derive(Debug, Clone)]
pub struct Jitter(u64);

impl Jitter {
    /// A generator from a seed; any seed works, zero included.
    pub fn new(seed: u64) -> Self {
        Jitter(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next value in [0, 1).
    pub fn next_unit(&mut self) -> f64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}
