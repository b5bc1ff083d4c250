//! The lock manager alone: random acquire / convert / release sequences from several threads
//! never leave two incompatible grants on a resource, and every request ends (granted, timed
//! out or chosen as a deadlock victim); FIFO fairness (an X request is not starved by later
//! S requests); deadlock victims by priority. Keys are asked for in the row and key-range
//! modes, objects in the object modes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::locks::{Acquired, LockError, LockManager, LockMode, LockRequest, Resource};

const MODES: [LockMode; 9] = [
    LockMode::SchS,
    LockMode::SchM,
    LockMode::IS,
    LockMode::IU,
    LockMode::IX,
    LockMode::S,
    LockMode::U,
    LockMode::SIX,
    LockMode::X,
];

/// Modes requested on keys: the row modes and the key-range modes.
const KEY_MODES: [LockMode; 7] = [
    LockMode::S,
    LockMode::U,
    LockMode::X,
    LockMode::RangeSS,
    LockMode::RangeSU,
    LockMode::RangeIN,
    LockMode::RangeXX,
];

fn req(owner: u64, timeout_ms: i64, priority: i32) -> LockRequest {
    LockRequest {
        owner,
        spid: owner as i32,
        priority,
        timeout_ms,
        cancel: None,
    }
}

fn key(n: u8) -> Resource {
    Resource::key(5, 100, 1, &[n])
}

/// No resource has two grants (of different owners) that are incompatible.
fn check_grants(m: &LockManager) {
    let snap = m.snapshot();
    for a in snap.iter().filter(|l| l.status != "WAIT") {
        for b in snap.iter().filter(|l| l.status != "WAIT") {
            if a.resource == b.resource && a.owner != b.owner {
                assert!(
                    a.mode.compatible(b.mode),
                    "incompatible grants {a:?} / {b:?}"
                );
            }
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn random_sequences_keep_grants_compatible_and_end() {
    let seeds: u64 = std::env::var("LATCHKEY_LOCK_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    for seed in 1..=seeds {
        let m = Arc::new(LockManager::new());
        let stop = Arc::new(AtomicBool::new(false));
        let checker = {
            let (m, stop) = (m.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    check_grants(&m);
                    std::thread::yield_now();
                }
            })
        };
        let mut threads = Vec::new();
        for t in 0..6u64 {
            let m = m.clone();
            threads.push(std::thread::spawn(move || {
                let mut rng = Rng(seed * 7919 + t * 104_729 + 1);
                let (mut granted, mut timeouts, mut deadlocks) = (0, 0, 0);
                for _txn in 0..30 {
                    let owner = m.new_owner();
                    let prio = rng.below(3) as i32 - 1;
                    for _ in 0..rng.below(6) + 1 {
                        let (res, mode) = if rng.below(4) == 0 {
                            let mode = MODES[rng.below(MODES.len() as u64) as usize];
                            (Resource::Object { db: 5, object: 100 }, mode)
                        } else {
                            let mode = KEY_MODES[rng.below(KEY_MODES.len() as u64) as usize];
                            (key(rng.below(4) as u8), mode)
                        };
                        let start = Instant::now();
                        let r = m.acquire(&req(owner, 30, prio), res, mode);
                        // a request ends within its timeout (plus scheduling slack)
                        assert!(start.elapsed() < Duration::from_secs(5), "request hung");
                        match r {
                            Ok(_) => {
                                granted += 1;
                                assert!(m.holds(owner, &res, mode), "granted but not held");
                            }
                            Err(LockError::Timeout) => timeouts += 1,
                            Err(LockError::Deadlock) => {
                                deadlocks += 1;
                                break;
                            }
                            Err(LockError::Cancelled) => unreachable!(),
                        }
                        if rng.below(5) == 0 {
                            m.release_if(owner, &res, mode);
                        }
                    }
                    m.release_all(owner);
                }
                (granted, timeouts, deadlocks)
            }));
        }
        let mut total = (0, 0, 0);
        for t in threads {
            let (g, to, d) = t.join().expect("worker");
            total = (total.0 + g, total.1 + to, total.2 + d);
        }
        stop.store(true, Ordering::Relaxed);
        checker.join().expect("checker");
        assert!(total.0 > 0, "{total:?}");
        assert!(m.snapshot().is_empty(), "all released: {:?}", m.snapshot());
        // the range-lock counter inserts consult went back to zero with the grants
        assert_eq!(m.activity(5, 100).range_locks(), 0);
        assert_eq!(m.activity(5, 100).writers(), 0);
    }
}

#[test]
fn x_is_not_starved_by_later_shared_requests() {
    let m = Arc::new(LockManager::new());
    let r = key(1);
    assert_eq!(m.acquire(&req(1, -1, 0), r, LockMode::S), Ok(Acquired::New));
    let waiter = {
        let m = m.clone();
        std::thread::spawn(move || m.acquire(&req(2, 5_000, 0), r, LockMode::X))
    };
    std::thread::sleep(Duration::from_millis(100));
    // a new S request queues behind the waiting X instead of joining owner 1's S
    assert_eq!(
        m.acquire(&req(3, 100, 0), r, LockMode::S),
        Err(LockError::Timeout)
    );
    m.release_all(1);
    assert_eq!(waiter.join().expect("waiter"), Ok(Acquired::New));
    assert!(m.holds(2, &r, LockMode::X));
    m.release_all(2);
    assert_eq!(m.acquire(&req(3, 0, 0), r, LockMode::S), Ok(Acquired::New));
}

#[test]
fn conversions_and_covering_object_locks() {
    let m = LockManager::new();
    let r = key(1);
    assert_eq!(m.acquire(&req(1, 0, 0), r, LockMode::S), Ok(Acquired::New));
    assert_eq!(m.acquire(&req(2, 0, 0), r, LockMode::S), Ok(Acquired::New));
    // U beside another S is fine, X is not
    assert_eq!(
        m.acquire(&req(1, 0, 0), r, LockMode::U),
        Ok(Acquired::Converted)
    );
    assert_eq!(
        m.acquire(&req(1, 0, 0), r, LockMode::X),
        Err(LockError::Timeout)
    );
    assert!(
        m.holds(1, &r, LockMode::U),
        "a failed conversion keeps the old mode"
    );
    m.release_all(2);
    assert_eq!(
        m.acquire(&req(1, 0, 0), r, LockMode::X),
        Ok(Acquired::Converted)
    );
    assert_eq!(m.acquire(&req(1, 0, 0), r, LockMode::S), Ok(Acquired::Held));
    // an object X covers its rows (intent locks on the object are the caller's to take)
    let obj = Resource::Object { db: 5, object: 100 };
    m.release_all(1);
    assert_eq!(
        m.acquire(&req(4, 0, 0), obj, LockMode::X),
        Ok(Acquired::New)
    );
    assert_eq!(
        m.acquire(&req(4, 0, 0), key(9), LockMode::X),
        Ok(Acquired::Held)
    );
    assert_eq!(
        m.acquire(&req(5, 0, 0), obj, LockMode::IS),
        Err(LockError::Timeout)
    );
}

#[test]
fn deadlock_victim_is_the_lowest_priority() {
    for (p1, p2, victim) in [(0, -5, 2u64), (5, 0, 2), (-10, 10, 1)] {
        let m = Arc::new(LockManager::new());
        let (a, b) = (key(1), key(2));
        m.acquire(&req(1, -1, p1), a, LockMode::X).expect("a");
        m.acquire(&req(2, -1, p2), b, LockMode::X).expect("b");
        let t1 = {
            let m = m.clone();
            std::thread::spawn(move || {
                let r = m.acquire(&req(1, 10_000, p1), b, LockMode::X);
                if r.is_err() {
                    m.release_all(1);
                }
                r
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        let r2 = m.acquire(&req(2, 10_000, p2), a, LockMode::S);
        if r2.is_err() {
            m.release_all(2);
        }
        let r1 = t1.join().expect("t1");
        let (rv, rs) = if victim == 1 { (r1, r2) } else { (r2, r1) };
        assert_eq!(rv, Err(LockError::Deadlock), "priorities {p1} {p2}");
        assert_eq!(rs, Ok(Acquired::New), "priorities {p1} {p2}");
    }
}
