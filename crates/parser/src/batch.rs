//! Splitting a script into batches at `GO` lines.

/// One batch of a script: the text between `GO` separators.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    pub text: String,
    /// 1-based line of the script where the batch text starts.
    pub first_line: u32,
    /// `GO n` runs the batch n times (1 for a plain `GO` or the last batch).
    pub repeat: u32,
}

/// If `line` is a `GO [count]` separator, returns the count.
fn go_count(line: &str) -> Option<u32> {
    let t = line.trim();
    let b = t.as_bytes();
    if b.len() < 2 || !b[..2].eq_ignore_ascii_case(b"go") {
        return None;
    }
    // bytes 0..2 are ASCII, so 2 is a char boundary
    let rest = t[2..].trim();
    // allow a trailing `-- comment`
    let rest = match rest.find("--") {
        Some(i) => rest[..i].trim(),
        None => rest,
    };
    if rest.is_empty() {
        return Some(1);
    }
    if !t[2..].starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    rest.parse::<u32>().ok().filter(|n| *n > 0)
}

/// Lexical state carried across lines so that `GO` inside a string or block comment does not split.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    /// Inside a quote; the byte is the closing character.
    Quoted(u8),
    /// Inside `/* */`, with nesting depth.
    Comment(u32),
}

fn scan_line(mut st: State, line: &[u8]) -> State {
    let mut i = 0;
    while i < line.len() {
        let c = line[i];
        match st {
            State::Code => match c {
                b'\'' => st = State::Quoted(b'\''),
                b'"' => st = State::Quoted(b'"'),
                b'[' => st = State::Quoted(b']'),
                b'-' if line.get(i + 1) == Some(&b'-') => return st,
                b'/' if line.get(i + 1) == Some(&b'*') => {
                    st = State::Comment(1);
                    i += 1;
                }
                _ => {}
            },
            State::Quoted(q) => {
                if c == q {
                    if line.get(i + 1) == Some(&q) {
                        i += 1;
                    } else {
                        st = State::Code;
                    }
                }
            }
            State::Comment(d) => {
                if c == b'*' && line.get(i + 1) == Some(&b'/') {
                    st = if d == 1 {
                        State::Code
                    } else {
                        State::Comment(d - 1)
                    };
                    i += 1;
                } else if c == b'/' && line.get(i + 1) == Some(&b'*') {
                    st = State::Comment(d + 1);
                    i += 1;
                }
            }
        }
        i += 1;
    }
    st
}

/// Splits a script at lines consisting of `GO` (case-insensitive, optional surrounding
/// whitespace, optional repeat count `GO 5`). `GO` inside a string or block comment does not
/// split. Batches that contain only whitespace are dropped.
pub fn split_batches(script: &str) -> Vec<Batch> {
    let mut out = Vec::new();
    let mut state = State::Code;
    let mut start = 0usize; // byte offset of current batch start
    let mut start_line = 1u32;
    let mut line_no = 1u32;
    let mut pos = 0usize;
    let bytes = script.as_bytes();
    while pos <= bytes.len() {
        let end = match script[pos..].find('\n') {
            Some(i) => pos + i,
            None => bytes.len(),
        };
        let line = &script[pos..end];
        let count = if state == State::Code {
            go_count(line)
        } else {
            None
        };
        if let Some(n) = count {
            let text = &script[start..pos];
            if !text.trim().is_empty() {
                out.push(Batch {
                    text: text.to_string(),
                    first_line: start_line,
                    repeat: n,
                });
            }
            start = (end + 1).min(bytes.len());
            start_line = line_no + 1;
        } else {
            state = scan_line(state, line.as_bytes());
        }
        if end >= bytes.len() {
            break;
        }
        pos = end + 1;
        line_no += 1;
    }
    if start < bytes.len() {
        let text = &script[start..];
        if !text.trim().is_empty() {
            out.push(Batch {
                text: text.to_string(),
                first_line: start_line,
                repeat: 1,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_go_lines() {
        let b = split_batches("select 1\nGO\n  go 3  \nselect 2\nselect 3\nGo\n");
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].text, "select 1\n");
        assert_eq!(b[0].first_line, 1);
        assert_eq!(b[1].text, "select 2\nselect 3\n");
        assert_eq!(b[1].first_line, 4);
        assert_eq!(b[1].repeat, 1);
    }

    #[test]
    fn crlf_and_comments_after_go() {
        let b = split_batches("select 1\r\nGO\r\nselect 2\r\ngo -- done\r\nselect 3");
        assert_eq!(b.len(), 3);
        assert_eq!(b[0].text, "select 1\r\n");
        assert_eq!(b[1].first_line, 3);
        assert_eq!(b[2].first_line, 5);
        // not separators: GO with other text, GOTO, GO 0
        assert_eq!(split_batches("GO x\nGOTO l\nGO 0\n").len(), 1);
    }

    #[test]
    fn go_count_and_no_split_inside_strings() {
        let b = split_batches("print 'a\nGO\nb'\nGO 2\nselect 1");
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].text, "print 'a\nGO\nb'\n");
        assert_eq!(b[0].repeat, 2);
        assert_eq!(b[1].first_line, 5);
        let b = split_batches("/* x\nGO\n*/ select 1\nGOTO x\ngo");
        assert_eq!(b.len(), 1);
        assert!(b[0].text.contains("GOTO"));
    }
}
