//! Fitting table output to the terminal: on a terminal the padded widths of the widest
//! columns shrink until a row fits the screen (a longer value is still printed whole, so no
//! data is lost; only the padding of that column is given up).

/// The width of the terminal on stdout, if it is one.
pub(crate) fn stdout_columns() -> Option<usize> {
    // SAFETY: TIOCGWINSZ fills a plain struct; on failure (not a terminal) it is left unused.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_col > 0).then_some(ws.ws_col as usize)
}

/// Shrinks `widths` (columns separated by one space) to fit `total` characters: every column
/// wider than a common cap is cut to it (widest first, like water levelling), never below its
/// `min` (the header's width, at least 4). The cap is the largest that fits.
pub(crate) fn fit(widths: &mut [usize], min: &[usize], total: usize) {
    let floor = |i: usize| min.get(i).copied().unwrap_or(4);
    let line = |cap: usize| -> usize {
        let cells: usize = (0..widths.len())
            .map(|i| widths[i].min(cap.max(floor(i))))
            .sum();
        cells + widths.len().saturating_sub(1)
    };
    let widest = widths.iter().copied().max().unwrap_or(0);
    if line(widest) <= total {
        return;
    }
    // the largest cap whose line fits (line() grows with the cap)
    let (mut lo, mut hi) = (0, widest);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if line(mid) <= total {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    for (i, w) in widths.iter_mut().enumerate() {
        *w = (*w).min(lo.max(floor(i)));
    }
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn widest_columns_give_first_and_headers_stay_whole() {
        let mut w = vec![11, 256, 256];
        fit(&mut w, &[2, 4, 11], 80);
        assert!(w.iter().sum::<usize>() + 2 <= 80, "{w:?}");
        assert!(w.iter().sum::<usize>() + 2 >= 78, "{w:?}");
        assert_eq!(w[0], 11);
        assert!(w[1].abs_diff(w[2]) <= 1, "{w:?}");
        // nothing to give: left as it is
        let mut w = vec![5, 5];
        fit(&mut w, &[5, 5], 4);
        assert_eq!(w, vec![5, 5]);
        // already fits
        let mut w = vec![11, 20];
        fit(&mut w, &[4, 4], 80);
        assert_eq!(w, vec![11, 20]);
    }
}
