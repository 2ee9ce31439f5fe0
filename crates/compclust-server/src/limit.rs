//! Per-participant rate limits: a token bucket per (study, participant id), refilled at
//! `rate` requests per second up to `burst`, in a bounded map.
//!
//! A bucket that has refilled to `burst` is the same as no bucket, so full buckets are dropped
//! when the map reaches its capacity; when every bucket is still in use, a participant id not
//! seen before is refused until some refill (a stream of made-up ids cannot grow the map
//! without bound).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Why a request is refused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limited {
    /// This participant sent too many requests: try again after this long.
    Participant(Duration),
    /// Too many participants are active at once: try again after this long.
    Busy(Duration),
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The rate limits of a server.
pub struct Limiter {
    rate: f64,
    burst: f64,
    capacity: usize,
    buckets: Mutex<HashMap<(String, String), Bucket>>,
}

impl Limiter {
    /// `rate` requests per second per participant (0: no limit), bursts of up to `burst`,
    /// at most `capacity` participants tracked at once.
    pub fn new(rate: f64, burst: f64, capacity: usize) -> Self {
        Limiter {
            rate,
            burst: burst.max(1.0),
            capacity: capacity.max(1),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Take one token of `participant` in `study` at `now`.
    pub fn check(&self, study: &str, participant: &str, now: Instant) -> Result<(), Limited> {
        if self.rate <= 0.0 {
            return Ok(());
        }
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let key = (study.to_string(), participant.to_string());
        if !buckets.contains_key(&key) && buckets.len() >= self.capacity {
            buckets.retain(|_, b| self.tokens(b, now) < self.burst);
            if buckets.len() >= self.capacity {
                // The bucket that refills first frees a place.
                let wait = buckets
                    .values()
                    .map(|b| self.refill_time(self.tokens(b, now)))
                    .fold(Duration::MAX, Duration::min);
                return Err(Limited::Busy(wait));
            }
        }
        let b = buckets.entry(key).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        let tokens = self.tokens(b, now);
        if tokens < 1.0 {
            *b = Bucket { tokens, at: now };
            return Err(Limited::Participant(Duration::from_secs_f64(
                (1.0 - tokens) / self.rate,
            )));
        }
        *b = Bucket {
            tokens: tokens - 1.0,
            at: now,
        };
        Ok(())
    }

    /// The tokens of `b` at `now`.
    fn tokens(&self, b: &Bucket, now: Instant) -> f64 {
        let dt = now.saturating_duration_since(b.at).as_secs_f64();
        (b.tokens + dt * self.rate).min(self.burst)
    }

    /// How long a bucket holding `tokens` takes to be full.
    fn refill_time(&self, tokens: f64) -> Duration {
        Duration::from_secs_f64(((self.burst - tokens) / self.rate).max(0.0))
    }

    /// Participants tracked now.
    pub fn tracked(&self) -> usize {
        self.buckets.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_its_rate() {
        let l = Limiter::new(2.0, 3.0, 10);
        let t = Instant::now();
        for _ in 0..3 {
            assert_eq!(l.check("s", "a", t), Ok(()));
        }
        let Err(Limited::Participant(wait)) = l.check("s", "a", t) else {
            panic!("the fourth request at once is limited")
        };
        assert!((wait.as_secs_f64() - 0.5).abs() < 1e-9, "{wait:?}");
        // Another participant, or the same one in another study, has a bucket of its own.
        assert_eq!(l.check("s", "b", t), Ok(()));
        assert_eq!(l.check("s2", "a", t), Ok(()));
        // Half a second later one token is back.
        let later = t + Duration::from_millis(500);
        assert_eq!(l.check("s", "a", later), Ok(()));
        assert!(l.check("s", "a", later).is_err());
    }

    #[test]
    fn the_map_is_bounded_and_full_buckets_make_room() {
        let l = Limiter::new(1.0, 2.0, 2);
        let t = Instant::now();
        assert_eq!(l.check("s", "a", t), Ok(()));
        assert_eq!(l.check("s", "b", t), Ok(()));
        let Err(Limited::Busy(wait)) = l.check("s", "c", t) else {
            panic!("a third participant while two are active")
        };
        assert_eq!(wait, Duration::from_secs(1));
        assert_eq!(l.tracked(), 2);
        // A second later a's and b's buckets are full again: c takes a place.
        let later = t + Duration::from_secs(1);
        assert_eq!(l.check("s", "c", later), Ok(()));
        assert!(l.tracked() <= 2);
        // Known participants are not refused for being many.
        assert_eq!(l.check("s", "c", later), Ok(()));
    }

    #[test]
    fn rate_zero_is_no_limit() {
        let l = Limiter::new(0.0, 1.0, 1);
        let t = Instant::now();
        for i in 0..100 {
            assert_eq!(l.check("s", &i.to_string(), t), Ok(()));
        }
        assert_eq!(l.tracked(), 0);
    }
}
