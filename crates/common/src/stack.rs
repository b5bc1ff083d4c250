//! Stack growth for recursive passes over user-shaped trees.
//!
//! The binder, optimizer, executor and plan renderers recurse over trees whose depth the user
//! controls (a chain of 1,000 JOINs, 700 chained CTEs, deeply nested expressions). Instead of a
//! fixed recursion limit that would reject shapes SQL Server accepts, every such recursive
//! function runs its body through [`grow`]: when less than [`RED_ZONE`] bytes of stack remain,
//! the body continues on a fresh heap-allocated segment of [`SEGMENT`] bytes (the `stacker`
//! crate, which rustc uses for the same purpose). Depth stays bounded by the input itself: the
//! parser caps nesting (Msg 191) and the binder caps the number of table sources (Msg 8623), so
//! the total stack is proportional to the statement's size.

/// Remaining stack below which a recursive step moves to a new segment. Large enough for the
/// biggest single frame between two [`grow`] calls (planner frames hold logical operators by
/// value).
pub const RED_ZONE: usize = 256 * 1024;

/// Size of each heap-allocated stack segment.
pub const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, first moving to a new stack segment when the current one is nearly exhausted.
/// Wrap the body of every function that recurses over a user-shaped tree.
#[inline]
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(n: u64) -> u64 {
        grow(|| {
            // a frame big enough that 100,000 levels would overflow any default thread stack
            let pad = std::hint::black_box([0u8; 512]);
            if n == 0 {
                pad[0] as u64
            } else {
                depth(n - 1) + 1 + pad[1] as u64
            }
        })
    }

    #[test]
    fn deep_recursion_grows_instead_of_overflowing() {
        assert_eq!(depth(100_000), 100_000);
    }
}
