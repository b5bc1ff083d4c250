//! SQL LIKE, compiled once per pattern: `%` any run, `_` one character, `[abc]`, `[a-f]`,
//! `[^…]` sets, an optional escape character; characters compared under a collation
//! (case-insensitive by default). Trailing blanks of the value are significant only as the
//! pattern demands (a value whose leftover tail is blanks matches when nothing but `%` is left
//! of the pattern), except for Unicode operands (`like_match_unicode`).
//!
//! Row mode (`functions::like_match`, per value) and batch mode (a constant pattern compiled
//! once by [`LikePattern::compile_for_many`], matched against every value of a string
//! vector) both run [`LikePattern::matches`]:
//! one implementation. Patterns made of literals and `%` only (prefix, suffix, contains,
//! `%a%b%`) also have a byte-level path for ASCII values without trailing blanks, whose
//! answers equal the general matcher's (the ASCII case classes are derived from the
//! collation's own `fold_char`; `like_fast_path_equals_general` checks both over many values).

use crate::collation::Collation;

#[derive(Clone, Debug)]
enum Tok {
    Any,
    One,
    Lit(char),
    Set(bool, Vec<(char, char)>),
}

/// A compiled LIKE pattern.
#[derive(Clone, Debug)]
pub struct LikePattern {
    toks: Vec<Tok>,
    coll: Collation,
    /// The byte-level form of a pattern of ASCII literals and `%`.
    fast: Option<Segments>,
}

/// `%`-separated runs of ASCII literals, as case classes.
#[derive(Clone, Debug)]
struct Segments {
    /// The class of each ASCII byte: the smallest byte the collation folds to the same key.
    class: [u8; 128],
    segs: Vec<Vec<u8>>,
    /// Whether the pattern starts / ends with `%`.
    open_start: bool,
    open_end: bool,
}

impl LikePattern {
    /// Compiles `pattern` with its escape character under `coll`, for one match (row mode's
    /// `like_match`): the character matcher only.
    pub fn compile(pattern: &str, escape: Option<char>, coll: Collation) -> Self {
        let toks = tokenize(pattern, escape);
        LikePattern {
            toks,
            coll,
            fast: None,
        }
    }

    /// [`Self::compile`] for a pattern matched against many values (a batch kernel): also
    /// builds the byte-level path where the pattern allows it (its case-class table costs
    /// 128 `fold_char` calls, too many to pay per row).
    pub fn compile_for_many(pattern: &str, escape: Option<char>, coll: Collation) -> Self {
        let toks = tokenize(pattern, escape);
        let fast = segments(&toks, coll);
        LikePattern { toks, coll, fast }
    }

    /// Whether `value` matches; `blanks_significant`: trailing blanks of the value count
    /// (Unicode operands).
    pub fn matches(&self, value: &str, blanks_significant: bool) -> bool {
        if let Some(s) = &self.fast {
            // no trailing blank: the blanks rule cannot apply, both matchers agree
            if value.is_ascii() && !value.ends_with(' ') {
                return s.matches(value.as_bytes());
            }
        }
        self.matches_general(value, blanks_significant)
    }

    /// The character-level matcher (backtracking on the last `%`).
    fn matches_general(&self, value: &str, blanks_significant: bool) -> bool {
        let v: Vec<char> = value.chars().collect();
        let toks = &self.toks;
        let coll = self.coll;
        let eq = |a: char, b: char| a == b || coll.fold_char(a) == coll.fold_char(b);
        let in_set = |c: char, neg: bool, ranges: &[(char, char)]| {
            let fc = coll.fold_char(c);
            let hit = ranges.iter().any(|&(lo, hi)| {
                if lo == hi {
                    eq(c, lo)
                } else {
                    let (flo, fhi) = (coll.fold_char(lo), coll.fold_char(hi));
                    (flo.0 < fc.0 || (flo.0 == fc.0 && flo.1 <= fc.1))
                        && (fc.0 < fhi.0 || (fc.0 == fhi.0 && fc.1 <= fhi.1))
                }
            });
            hit != neg
        };
        let (mut vi, mut ti) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while vi < v.len() {
            if ti < toks.len() {
                match &toks[ti] {
                    Tok::Any => {
                        star = Some((ti, vi));
                        ti += 1;
                        continue;
                    }
                    Tok::One => {
                        vi += 1;
                        ti += 1;
                        continue;
                    }
                    Tok::Lit(c) if eq(*c, v[vi]) => {
                        vi += 1;
                        ti += 1;
                        continue;
                    }
                    Tok::Set(neg, r) if in_set(v[vi], *neg, r) => {
                        vi += 1;
                        ti += 1;
                        continue;
                    }
                    _ => {}
                }
            }
            match star {
                Some((st, sv)) => {
                    ti = st + 1;
                    vi = sv + 1;
                    star = Some((st, sv + 1));
                }
                None => {
                    // trailing blanks of the value may be left over (SQL Server pads)
                    return !blanks_significant
                        && v[vi..].iter().all(|c| *c == ' ')
                        && toks[ti..].iter().all(|t| matches!(t, Tok::Any));
                }
            }
        }
        toks[ti..].iter().all(|t| matches!(t, Tok::Any))
    }
}

fn tokenize(pattern: &str, escape: Option<char>) -> Vec<Tok> {
    let p: Vec<char> = pattern.chars().collect();
    let mut toks = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        if Some(c) == escape && i + 1 < p.len() {
            toks.push(Tok::Lit(p[i + 1]));
            i += 2;
            continue;
        }
        match c {
            '%' => {
                if !matches!(toks.last(), Some(Tok::Any)) {
                    toks.push(Tok::Any);
                }
                i += 1;
            }
            '_' => {
                toks.push(Tok::One);
                i += 1;
            }
            '[' => {
                // find the closing ]
                let mut j = i + 1;
                let neg = j < p.len() && p[j] == '^';
                if neg {
                    j += 1;
                }
                let start = j;
                let mut ranges = Vec::new();
                let mut closed = false;
                while j < p.len() {
                    if p[j] == ']' && j > start {
                        closed = true;
                        break;
                    }
                    if j + 2 < p.len() && p[j + 1] == '-' && p[j + 2] != ']' {
                        ranges.push((p[j], p[j + 2]));
                        j += 3;
                    } else {
                        ranges.push((p[j], p[j]));
                        j += 1;
                    }
                }
                if closed {
                    toks.push(Tok::Set(neg, ranges));
                    i = j + 1;
                } else {
                    toks.push(Tok::Lit('['));
                    i += 1;
                }
            }
            c => {
                toks.push(Tok::Lit(c));
                i += 1;
            }
        }
    }
    toks
}

/// The byte-level form of `toks` when it holds only ASCII literals and `%`.
fn segments(toks: &[Tok], coll: Collation) -> Option<Segments> {
    // the class of a byte: the smallest byte with the same key (equality under the
    // collation is `a == b || fold(a) == fold(b)`, i.e. equal keys)
    let keys: Vec<(u32, u8)> = (0..128u8).map(|b| coll.fold_char(b as char)).collect();
    let mut class = [0u8; 128];
    for b in 0..128usize {
        class[b] = (0..=b).find(|&a| keys[a] == keys[b]).unwrap_or(b) as u8;
    }
    let mut segs: Vec<Vec<u8>> = vec![Vec::new()];
    for t in toks {
        match t {
            Tok::Any => segs.push(Vec::new()),
            Tok::Lit(c) if c.is_ascii() => {
                let last = segs.last_mut()?;
                last.push(class[*c as usize]);
            }
            _ => return None,
        }
    }
    let open_start = matches!(toks.first(), Some(Tok::Any));
    let open_end = matches!(toks.last(), Some(Tok::Any));
    Some(Segments {
        class,
        segs,
        open_start,
        open_end,
    })
}

impl Segments {
    #[inline]
    fn eq_at(&self, v: &[u8], at: usize, seg: &[u8]) -> bool {
        v.len() >= at + seg.len()
            && v[at..at + seg.len()]
                .iter()
                .zip(seg)
                .all(|(&b, &s)| self.class[usize::from(b & 0x7f)] == s)
    }

    /// The first position at or after `from` where `seg` starts.
    fn find(&self, v: &[u8], from: usize, seg: &[u8]) -> Option<usize> {
        if seg.len() > v.len() {
            return None;
        }
        (from..=v.len() - seg.len()).find(|&i| self.eq_at(v, i, seg))
    }

    /// `v` (ASCII) against `seg0 % seg1 % … % segN`: the first segment anchored at the start
    /// unless the pattern opens with `%`, the last at the end unless it closes with one, the
    /// middle ones found leftmost (which is optimal for `%`-only patterns).
    fn matches(&self, v: &[u8]) -> bool {
        let n = self.segs.len();
        if n == 1 {
            // no %: the whole value
            let s = &self.segs[0];
            return v.len() == s.len() && self.eq_at(v, 0, s);
        }
        let (first, last) = (&self.segs[0], &self.segs[n - 1]);
        let mut pos = 0usize;
        if !self.open_start {
            if !self.eq_at(v, 0, first) {
                return false;
            }
            pos = first.len();
        }
        // the end segment's start: the tail of the value
        let end_start = if self.open_end {
            v.len()
        } else {
            match v.len().checked_sub(last.len()) {
                Some(s) if s >= pos && self.eq_at(v, s, last) => s,
                _ => return false,
            }
        };
        for seg in &self.segs[1..n - 1] {
            match self.find(&v[..end_start], pos, seg) {
                Some(at) => pos = at + seg.len(),
                None => return false,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random numbers (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[(self.next() % xs.len() as u64) as usize]
        }
    }

    #[test]
    fn like_fast_path_equals_general() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let alphabet = ['a', 'B', 'b', 'A', 'c', ' ', 'x', 'é', 'É', '1'];
        let pat_chars = ['a', 'b', 'B', 'c', '%', '%', ' ', '1', 'x'];
        let colls = [Collation::DEFAULT, Collation::BIN2];
        let mut fast_checked = 0;
        for _ in 0..20_000 {
            let vlen = (rng.next() % 9) as usize;
            let v: String = (0..vlen).map(|_| rng.pick(&alphabet)).collect();
            let plen = (rng.next() % 7) as usize;
            let p: String = (0..plen).map(|_| rng.pick(&pat_chars)).collect();
            let coll = rng.pick(&colls);
            let pat = LikePattern::compile_for_many(&p, None, coll);
            for blanks in [false, true] {
                assert_eq!(
                    pat.matches(&v, blanks),
                    pat.matches_general(&v, blanks),
                    "{v:?} LIKE {p:?} ({coll:?}, blanks {blanks})"
                );
            }
            if pat.fast.is_some() && v.is_ascii() && !v.ends_with(' ') {
                fast_checked += 1;
            }
        }
        assert!(fast_checked > 5_000, "{fast_checked}");
    }

    #[test]
    fn like_shapes() {
        let m =
            |v: &str, p: &str| LikePattern::compile(p, None, Collation::DEFAULT).matches(v, false);
        assert!(m("PROMO BRUSHED", "promo%"));
        assert!(!m("XPROMO", "PROMO%"));
        assert!(m("LARGE BRASS", "%BRASS"));
        assert!(!m("LARGE BRASSY", "%BRASS"));
        assert!(m("forest green lace", "%green%"));
        assert!(m("special packages requests", "%special%requests%"));
        assert!(!m("requests special", "%special%requests%"));
        assert!(m("abab", "ab%ab"));
        assert!(!m("aba", "ab%ab"));
        assert!(m("ab", "a%%b"));
        assert!(m("", ""));
        assert!(!m("a", ""));
    }
}
