//! Decoding text files into UTF-8: script input (`latchkey -i`, standard input) and the
//! character data files of `BULK INSERT` (`CODEPAGE`, `DATAFILETYPE = 'widechar'`).
//!
//! One implementation for both: [`TextEncoding`] names what the bytes are, [`detect_bom`]
//! reads a byte order mark as sqlcmd does (UTF-8 `EF BB BF`, UTF-16 LE `FF FE`, UTF-16 BE
//! `FE FF`), and [`Decoder`] turns chunks of bytes into UTF-8 text, carrying a sequence cut by
//! a chunk boundary over to the next chunk and counting lines so that an invalid byte is
//! reported with the line it is on. [`DecodingReader`] wraps any `Read` (a file, standard
//! input) and yields UTF-8 bytes, so line-oriented readers work unchanged.

use std::io::{self, Read};

/// How the bytes of a text file encode characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8 (code page 65001); invalid sequences are errors.
    Utf8,
    /// UTF-16 little-endian (`DATAFILETYPE = 'widechar'`, SSMS's "Unicode" save).
    Utf16Le,
    /// UTF-16 big-endian.
    Utf16Be,
    /// Windows code page 1252 (SQL Server's `ACP` for Latin1 collations).
    Cp1252,
    /// The US OEM code page 437 (`OEM`).
    Cp437,
    /// ISO 8859-1 (code page 28591): each byte is the character of the same number.
    Latin1,
}

impl TextEncoding {
    /// The encoding of a Windows code page number latchkey can read, if any.
    pub fn from_code_page(cp: u32) -> Option<TextEncoding> {
        Some(match cp {
            65001 => TextEncoding::Utf8,
            1200 => TextEncoding::Utf16Le,
            1201 => TextEncoding::Utf16Be,
            1252 => TextEncoding::Cp1252,
            437 => TextEncoding::Cp437,
            28591 => TextEncoding::Latin1,
            _ => return None,
        })
    }
}

/// A byte order mark at the start of `bytes`: the encoding it announces and its length.
pub fn detect_bom(bytes: &[u8]) -> Option<(TextEncoding, usize)> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        Some((TextEncoding::Utf8, 3))
    } else if bytes.starts_with(&[0xFF, 0xFE]) {
        Some((TextEncoding::Utf16Le, 2))
    } else if bytes.starts_with(&[0xFE, 0xFF]) {
        Some((TextEncoding::Utf16Be, 2))
    } else {
        None
    }
}

/// Bytes that are not valid in the encoding being read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// 1-based line of the decoded text on which the bad bytes are.
    pub line: u64,
    /// Offset of the first bad byte in the whole input (BOM included).
    pub offset: u64,
    pub encoding: TextEncoding,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.encoding {
            TextEncoding::Utf8 => "invalid UTF-8 byte sequence",
            TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
                "invalid UTF-16 (an unpaired surrogate or an odd number of bytes)"
            }
            _ => "invalid byte",
        };
        write!(
            f,
            "{what} at line {} (byte offset {}); the file must be UTF-8 (with or without a byte order mark) or UTF-16 with a byte order mark",
            self.line, self.offset
        )
    }
}

impl std::error::Error for DecodeError {}

/// Code page 437, bytes 0x80..=0xFF.
const CP437_HIGH: &str = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{A0}";

fn cp437_char(b: u8) -> char {
    if b < 0x80 {
        return b as char;
    }
    CP437_HIGH
        .chars()
        .nth((b - 0x80) as usize)
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// Incremental decoder from one encoding to UTF-8.
#[derive(Debug)]
pub struct Decoder {
    encoding: TextEncoding,
    /// Bytes of a sequence cut by the end of the previous chunk.
    carry: Vec<u8>,
    /// Lines completed so far (newlines decoded), for error messages.
    lines: u64,
    /// Input bytes consumed before the current chunk.
    consumed: u64,
    cp437: Option<Box<[char; 128]>>,
}

impl Decoder {
    pub fn new(encoding: TextEncoding) -> Decoder {
        let cp437 = (encoding == TextEncoding::Cp437).then(|| {
            let mut t = Box::new(['\0'; 128]);
            for (i, c) in t.iter_mut().enumerate() {
                *c = cp437_char(0x80 + i as u8);
            }
            t
        });
        Decoder {
            encoding,
            carry: Vec::new(),
            lines: 0,
            consumed: 0,
            cp437,
        }
    }

    pub fn encoding(&self) -> TextEncoding {
        self.encoding
    }

    /// Counts `n` input bytes already consumed outside the decoder (a byte order mark).
    pub fn skip(&mut self, n: u64) {
        self.consumed += n;
    }

    fn error_at(&self, offset_in_chunk: usize, decoded_tail: &str) -> DecodeError {
        DecodeError {
            line: self.lines + decoded_tail.bytes().filter(|&b| b == b'\n').count() as u64 + 1,
            offset: self.consumed + offset_in_chunk as u64,
            encoding: self.encoding,
        }
    }

    /// Decodes `input` (the next chunk) and appends the text to `out`. A sequence cut at the
    /// end of the chunk is kept for the next call; `last` says there is none (the end of the
    /// input), so a cut sequence is an error.
    pub fn decode(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut String,
    ) -> Result<(), DecodeError> {
        let start_len = out.len();
        let carried = self.carry.len();
        let mut joined;
        let bytes: &[u8] = if carried == 0 {
            input
        } else {
            joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(input);
            &joined[..]
        };
        // `consumed` is the offset of `bytes[0]`: the carried bytes were not counted yet
        let r = self.decode_bytes(bytes, last, out, start_len);
        match r {
            Ok(used) => {
                self.carry.extend_from_slice(&bytes[used..]);
                self.consumed += used as u64;
                self.lines += out[start_len..].bytes().filter(|&b| b == b'\n').count() as u64;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Decodes as much of `bytes` as forms whole characters; returns the bytes used.
    fn decode_bytes(
        &self,
        bytes: &[u8],
        last: bool,
        out: &mut String,
        start_len: usize,
    ) -> Result<usize, DecodeError> {
        match self.encoding {
            TextEncoding::Utf8 => match std::str::from_utf8(bytes) {
                Ok(s) => {
                    out.push_str(s);
                    Ok(bytes.len())
                }
                Err(e) => {
                    let good = e.valid_up_to();
                    // from_utf8 validated bytes[..good]
                    out.push_str(std::str::from_utf8(&bytes[..good]).unwrap_or_default());
                    if e.error_len().is_none() && !last {
                        return Ok(good); // a sequence cut by the chunk end
                    }
                    Err(self.error_at(good, &out[start_len..]))
                }
            },
            TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
                let le = self.encoding == TextEncoding::Utf16Le;
                let whole = bytes.len() / 2 * 2;
                let units = bytes[..whole].chunks_exact(2).map(|c| {
                    if le {
                        u16::from_le_bytes([c[0], c[1]])
                    } else {
                        u16::from_be_bytes([c[0], c[1]])
                    }
                });
                let mut pos = 0usize;
                out.reserve(whole / 2);
                for r in char::decode_utf16(units) {
                    match r {
                        Ok(c) => {
                            out.push(c);
                            pos += c.len_utf16() * 2;
                        }
                        Err(e) => {
                            let high = (0xD800..0xDC00).contains(&e.unpaired_surrogate());
                            if high && pos + 2 == whole && !last {
                                return Ok(pos); // surrogate pair cut by the chunk end
                            }
                            return Err(self.error_at(pos, &out[start_len..]));
                        }
                    }
                }
                if whole != bytes.len() && last {
                    return Err(self.error_at(whole, &out[start_len..]));
                }
                Ok(whole)
            }
            TextEncoding::Cp1252 => {
                out.extend(bytes.iter().map(|&b| crate::charset::decode_byte(b)));
                Ok(bytes.len())
            }
            TextEncoding::Latin1 => {
                out.extend(bytes.iter().map(|&b| b as char));
                Ok(bytes.len())
            }
            TextEncoding::Cp437 => {
                let t = self.cp437.as_deref();
                out.extend(bytes.iter().map(|&b| match (b, t) {
                    (0x80.., Some(t)) => t[(b - 0x80) as usize],
                    _ => b as char,
                }));
                Ok(bytes.len())
            }
        }
    }
}

/// A reader that yields the UTF-8 text of a byte stream. `encoding: None` detects a byte order
/// mark (sqlcmd's rule: UTF-8 or UTF-16 with one, UTF-8 without); a BOM is never passed on.
/// Invalid input is an `io::Error` of kind `InvalidData` wrapping a [`DecodeError`].
pub struct DecodingReader<R: Read> {
    inner: R,
    decoder: Option<Decoder>,
    forced: Option<TextEncoding>,
    raw: Vec<u8>,
    text: String,
    pos: usize,
    eof: bool,
}

impl<R: Read> DecodingReader<R> {
    pub fn new(inner: R, encoding: Option<TextEncoding>) -> Self {
        DecodingReader {
            inner,
            decoder: None,
            forced: encoding,
            raw: vec![0; 64 * 1024],
            text: String::new(),
            pos: 0,
            eof: false,
        }
    }

    /// Reads until at least `n` bytes are buffered at the start or the input ends.
    fn read_at_least(&mut self, n: usize) -> io::Result<usize> {
        let mut have = 0;
        while have < n {
            let k = self.inner.read(&mut self.raw[have..])?;
            if k == 0 {
                self.eof = true;
                break;
            }
            have += k;
        }
        Ok(have)
    }

    fn refill(&mut self) -> io::Result<()> {
        self.text.clear();
        self.pos = 0;
        while self.text.is_empty() && !self.eof {
            let (have, mut dec) = match self.decoder.take() {
                Some(d) => (self.read_at_least(1)?, d),
                None => {
                    // the first bytes decide the encoding
                    let have = self.read_at_least(3)?;
                    let (enc, bom) = match (self.forced, detect_bom(&self.raw[..have])) {
                        (Some(TextEncoding::Utf16Le), Some((TextEncoding::Utf16Le, n)))
                        | (Some(TextEncoding::Utf16Be), Some((TextEncoding::Utf16Be, n)))
                        | (Some(TextEncoding::Utf8), Some((TextEncoding::Utf8, n))) => {
                            (self.forced.unwrap_or(TextEncoding::Utf8), n)
                        }
                        (Some(f), _) => (f, 0),
                        (None, Some((e, n))) => (e, n),
                        (None, None) => (TextEncoding::Utf8, 0),
                    };
                    let mut d = Decoder::new(enc);
                    d.skip(bom as u64);
                    self.raw.copy_within(bom..have, 0);
                    (have - bom, d)
                }
            };
            let r = dec.decode(&self.raw[..have], self.eof, &mut self.text);
            self.decoder = Some(dec);
            r.map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        }
        Ok(())
    }
}

impl<R: Read> Read for DecodingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.text.len() {
            if self.eof {
                return Ok(0);
            }
            self.refill()?;
        }
        let rest = &self.text.as_bytes()[self.pos..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
}

/// Reads a whole stream as text (BOM detection as [`DecodingReader`]).
pub fn read_text(inner: impl Read) -> io::Result<String> {
    let mut s = String::new();
    DecodingReader::new(inner, None).read_to_string(&mut s)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(s: &str, le: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if bom {
            out.extend_from_slice(if le { &[0xFF, 0xFE] } else { &[0xFE, 0xFF] });
        }
        for u in s.encode_utf16() {
            out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
        }
        out
    }

    /// A reader returning one byte per call: every chunk boundary is exercised.
    struct Trickle(Vec<u8>, usize);
    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.1 >= self.0.len() || buf.is_empty() {
                return Ok(0);
            }
            buf[0] = self.0[self.1];
            self.1 += 1;
            Ok(1)
        }
    }

    #[test]
    fn boms_and_plain_utf8() {
        let text = "SELECT N'ß€𝄞'\nGO\n";
        let mut bom8 = vec![0xEF, 0xBB, 0xBF];
        bom8.extend_from_slice(text.as_bytes());
        for bytes in [
            text.as_bytes().to_vec(),
            bom8,
            utf16(text, true, true),
            utf16(text, false, true),
        ] {
            assert_eq!(read_text(&bytes[..]).unwrap(), text);
            let mut s = String::new();
            DecodingReader::new(Trickle(bytes.clone(), 0), None)
                .read_to_string(&mut s)
                .unwrap();
            assert_eq!(s, text);
        }
    }

    #[test]
    fn invalid_bytes_name_the_line() {
        let e = read_text(&b"SELECT 1\nGO\nSELECT '\xff'\n"[..]).unwrap_err();
        let d = e
            .get_ref()
            .and_then(|e| e.downcast_ref::<DecodeError>())
            .unwrap();
        assert_eq!((d.line, d.offset), (3, 20));
        // a truncated sequence at the end of the input
        let e = read_text(&b"ab\n\xe2\x82"[..]).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        // an unpaired surrogate in UTF-16
        let mut b = utf16("a\nb", true, true);
        b.extend_from_slice(&[0x00, 0xD8, b'c', 0]);
        let e = read_text(&b[..]).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = read_text(Trickle(b, 0)).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
    }

    #[test]
    fn single_byte_code_pages() {
        let mut s = String::new();
        let mut d = Decoder::new(TextEncoding::Cp437);
        d.decode(&[b'a', 0x81, 0xE1, 0xFF], true, &mut s).unwrap();
        assert_eq!(s, "aüß\u{A0}");
        s.clear();
        Decoder::new(TextEncoding::Cp1252)
            .decode(&[0x80, 0xE9], true, &mut s)
            .unwrap();
        assert_eq!(s, "€é");
        assert_eq!(CP437_HIGH.chars().count(), 128);
    }
}
