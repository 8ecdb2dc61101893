//! Quoting outside text in an error without quoting a whole file.
//!
//! An error about a damaged file or a malformed request names what is wrong
//! and shows at most a few characters of it: enough to recognise, never
//! enough to read a file out through an error message (a server that
//! answered `checkpoint=/etc/passwd` with the file's first line did), and
//! never a control character that could rewrite a terminal or a log.

/// Characters of the text an excerpt keeps.
pub const EXCERPT_CHARS: usize = 24;

/// At most [`EXCERPT_CHARS`] characters of `text`, trimmed, with every
/// character that is not printable written as an escape and `…` where it
/// was cut.
///
/// ```
/// use yinsh_zero::util::excerpt;
/// assert_eq!(excerpt("  12x \n"), "12x");
/// assert_eq!(excerpt("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
/// assert_eq!(excerpt(&"z".repeat(100)), format!("{}…", "z".repeat(24)));
/// ```
pub fn excerpt(text: &str) -> String {
    clip(text, EXCERPT_CHARS)
}

/// A parser's message about outside text, at most `max` characters and
/// printable: serde's messages quote the offending value whole
/// (`invalid type: string "..."`), however long it is.
///
/// ```
/// use yinsh_zero::util::excerpt::clip;
/// assert_eq!(clip("invalid type: string \"root:x:0:0\"", 20), "invalid type: string…");
/// ```
pub fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// [`excerpt`] of bytes that may not be text at all.
pub fn excerpt_bytes(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(EXCERPT_CHARS * 4)];
    let text = String::from_utf8_lossy(head);
    let mut out = excerpt(&text);
    if head.len() < bytes.len() && !out.ends_with('…') {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_is_short_and_printable() {
        let passwd =
            "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n";
        let e = excerpt(passwd);
        assert!(e.chars().count() <= EXCERPT_CHARS + 1, "{e}");
        assert!(!e.contains("daemon"), "{e}");
        assert!(!e.chars().any(char::is_control), "{e:?}");
        assert_eq!(excerpt(""), "");
        let b = excerpt_bytes(&[0xff, 0, b'a']);
        assert!(!b.chars().any(char::is_control), "{b:?}");
        assert!(excerpt_bytes(&[b'x'; 1000]).ends_with('…'));
    }
}
