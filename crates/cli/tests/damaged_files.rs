//! End to end, as a user meets it (issue 8, finding 3): a 5,000-row table, one of its pages
//! zeroed with `dd`-style writes or its data file cut; `latchkey` reports Msg 824 / 5125
//! instead of answering 4,920 or 2,554 rows.

use std::path::Path;
use std::process::Command;

const PAGE: usize = 8192;

fn latchkey(data: &Path, query: &str) -> (String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .arg("--data")
        .arg(data)
        .arg("-Q")
        .arg(query)
        .output()
        .expect("run latchkey");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (text, out.status.success())
}

const DIGITS: &str = "(VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9))";

fn setup(data: &Path) {
    let q = format!(
        "CREATE TABLE t(a int, b varchar(100)); \
         INSERT t SELECT TOP (5000) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)), REPLICATE('x', 90) \
         FROM {DIGITS} a(x) CROSS JOIN {DIGITS} b(x) CROSS JOIN {DIGITS} c(x) CROSS JOIN {DIGITS} d(x); \
         SELECT COUNT(*) FROM t"
    );
    let (out, ok) = latchkey(data, &q);
    assert!(ok && out.contains("5000"), "{out}");
}

/// Heap pages (type 5) of the object owning the most heap pages: the 5,000-row table.
fn table_pages(file: &Path) -> Vec<usize> {
    let d = std::fs::read(file).unwrap();
    let heap_owner = |p: usize| {
        let pg = &d[p * PAGE..(p + 1) * PAGE];
        (pg[10] == 5).then(|| u64::from_le_bytes(pg[20..28].try_into().unwrap()))
    };
    let mut owners = std::collections::HashMap::<u64, usize>::new();
    for p in 0..d.len() / PAGE {
        if let Some(o) = heap_owner(p) {
            *owners.entry(o).or_default() += 1;
        }
    }
    let table = owners.into_iter().max_by_key(|(_, n)| *n).unwrap().0;
    (0..d.len() / PAGE)
        .filter(|&p| heap_owner(p) == Some(table))
        .collect()
}

#[test]
fn zeroed_table_page_is_msg_824_not_fewer_rows() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let file = dir.path().join("master").join("data1.mdf");
    let pages = table_pages(&file);
    assert!(pages.len() > 20, "{pages:?}");
    let victim = pages[pages.len() / 2];
    let mut bytes = std::fs::read(&file).unwrap();
    let original = bytes[victim * PAGE..(victim + 1) * PAGE].to_vec();
    bytes[victim * PAGE..(victim + 1) * PAGE].fill(0);
    std::fs::write(&file, &bytes).unwrap();
    let (out, _) = latchkey(dir.path(), "SELECT COUNT(*) FROM t");
    assert!(out.contains("Msg 824, Level 24"), "{out}");
    assert!(
        out.contains(&format!(
            "incorrect pageid (expected 1:{victim}; actual 0:0)"
        )),
        "{out}"
    );
    // no count at all (main printed 4,92x rows and no error)
    assert!(
        !out.lines().any(|l| l.trim().parse::<u64>().is_ok()),
        "{out}"
    );
    // restored: all rows. Only the page goes back: the rest of the file (its header names the
    // last checkpoint, which the refused query's clean shutdown moved) stays as it is now.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[victim * PAGE..(victim + 1) * PAGE].copy_from_slice(&original);
    std::fs::write(&file, &bytes).unwrap();
    let (out, ok) = latchkey(dir.path(), "SELECT COUNT(*) FROM t");
    assert!(ok && out.contains("5000"), "{out}");
}

#[test]
fn data_file_cut_inside_the_table_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let file = dir.path().join("master").join("data1.mdf");
    let pages = table_pages(&file);
    let full = std::fs::read(&file).unwrap();
    let cut = pages[pages.len() / 2] * PAGE;
    std::fs::write(&file, &full[..cut]).unwrap();
    let (out, ok) = latchkey(dir.path(), "SELECT COUNT(*) FROM t");
    assert!(!ok, "{out}");
    assert!(
        out.contains("Msg 5125, Level 24")
            && out.contains("appears to have been truncated by the operating system"),
        "{out}"
    );
    assert_eq!(
        std::fs::read(&file).unwrap().len(),
        cut,
        "the refused open wrote"
    );
    std::fs::write(&file, &full).unwrap();
    let (out, ok) = latchkey(dir.path(), "SELECT COUNT(*) FROM t");
    assert!(ok && out.contains("5000"), "{out}");
}

/// Under a file size limit (`ulimit -f`) the binary is not killed by SIGXFSZ: the insert that
/// needs more space fails with 1105 (data) or 9002 (log), and the database reopens clean with
/// the rows committed before.
#[test]
fn file_size_limit_is_an_error_not_a_killed_process() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let largest = ["data1.mdf", "log.ldf"]
        .iter()
        .map(|f| {
            std::fs::metadata(dir.path().join("master").join(f))
                .unwrap()
                .len()
        })
        .max()
        .unwrap();
    // bash's `ulimit -f` counts 1,024-byte blocks; leave 1 MB above the largest file
    let limit_kb = largest / 1024 + 1024;
    let grow = format!(
        "INSERT t SELECT TOP (200000) 1, REPLICATE('y', 100) \
         FROM {DIGITS} a(x) CROSS JOIN {DIGITS} b(x) CROSS JOIN {DIGITS} c(x) \
         CROSS JOIN {DIGITS} d(x) CROSS JOIN {DIGITS} e(x) CROSS JOIN {DIGITS} f(x)"
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -f {limit_kb}; exec \"$0\" --data \"$1\" -Q \"$2\""
        ))
        .arg(env!("CARGO_BIN_EXE_latchkey"))
        .arg(dir.path())
        .arg(&grow)
        .output()
        .expect("run latchkey under ulimit -f");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::os::unix::process::ExitStatusExt::signal(&out.status).is_none(),
        "killed by a signal: {:?}\n{text}",
        out.status
    );
    assert!(
        text.contains("Msg 1105") || text.contains("Msg 9002"),
        "{text}"
    );
    let (out, ok) = latchkey(
        dir.path(),
        "SELECT COUNT(*) FROM t; DBCC CHECKDB WITH NO_INFOMSGS",
    );
    assert!(ok && out.contains("5000"), "{out}");
    assert!(!out.contains("Msg "), "{out}");
}
