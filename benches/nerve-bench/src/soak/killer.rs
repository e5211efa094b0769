//! The killer's dice and its options: a seeded generator, so the schedule of kills (when,
//! which role, which one, how) replays with `--seed`, and the `--kill-every` range.

use std::str::FromStr;
use std::time::Duration;

/// splitmix64: small, seedable, good enough to pick victims.
pub struct Rng(u64);

impl Rng {
    /// A generator that replays for the same `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// A seed from the clock and the pid, for runs without `--seed`.
    pub fn fresh_seed() -> u64 {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Rng::new(t ^ u64::from(std::process::id()) << 32).next_u64()
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability 1/`n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next_u64().is_multiple_of(n)
    }
}

/// `--kill-every MIN..MAX` in milliseconds (or one number; `0` turns the killer off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KillEvery {
    /// Shortest interval between two kills, ms.
    pub min_ms: u64,
    /// Longest, ms.
    pub max_ms: u64,
}

impl KillEvery {
    /// Whether the killer runs at all.
    pub fn enabled(&self) -> bool {
        self.max_ms > 0
    }

    /// The wait before the next kill, uniform in the range.
    pub fn draw(&self, rng: &mut Rng) -> Duration {
        let span = self.max_ms - self.min_ms + 1;
        Duration::from_millis(self.min_ms + rng.next_u64() % span)
    }
}

impl FromStr for KillEvery {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let num = |t: &str| {
            t.trim()
                .parse::<u64>()
                .map_err(|_| format!("{t:?} is not a number of milliseconds"))
        };
        let (min_ms, max_ms) = match s.split_once("..") {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(s)?, num(s)?),
        };
        if min_ms > max_ms || (min_ms == 0 && max_ms > 0) {
            return Err(format!(
                "--kill-every {s}: use MIN..MAX with 0 < MIN <= MAX (ms), e.g. 50..500, or 0 for no kills"
            ));
        }
        Ok(Self { min_ms, max_ms })
    }
}

impl std::fmt::Display for KillEvery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.enabled() {
            write!(f, "{}..{} ms", self.min_ms, self.max_ms)
        } else {
            write!(f, "off")
        }
    }
}

/// How a child was killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KillMode {
    /// At whatever point it had reached: mid-send, mid-receive, mid-open.
    Anywhere,
    /// A publisher holding a loaned chunk it had half filled.
    MidLoan,
    /// A subscriber holding a received sample (its chunk pinned).
    HoldingSample,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_and_draws_stay_inside() {
        let k: KillEvery = "50..500".parse().unwrap();
        assert_eq!((k.min_ms, k.max_ms), (50, 500));
        assert!(!"0".parse::<KillEvery>().unwrap().enabled());
        assert!("500..50".parse::<KillEvery>().is_err());
        assert!("x".parse::<KillEvery>().is_err());
        let mut r = Rng::new(7);
        for _ in 0..1000 {
            let d = k.draw(&mut r).as_millis() as u64;
            assert!((50..=500).contains(&d));
        }
        let (mut a, mut b) = (Rng::new(1), Rng::new(1));
        assert_eq!(a.next_u64(), b.next_u64());
    }
}
