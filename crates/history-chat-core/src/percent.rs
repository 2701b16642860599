//! Percent-decoding of URL pieces, in one place for the two readers of URLs: the readable URL shown
//! to the user ([`crate::display::readable_url`]) and the words the index takes from a URL's path
//! and query values ([`crate::index`]). The decoding itself is the `percent-encoding` crate's (the
//! one `url` uses); what differs between the two readers is only what happens to invalid UTF-8.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

/// What [`percent_decode`] gives when the decoded bytes are not valid UTF-8 (`%FF`, or a
/// multi-byte character whose escapes were cut in half).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InvalidUtf8 {
    /// The piece exactly as written, escapes included: a reader is shown `%FF`, never `�`.
    KeepAsWritten,
    /// Each invalid sequence becomes U+FFFD (`�`). That is neither a letter nor a digit, so the
    /// index's word splitting drops it and keeps the words around it.
    Replace,
}

/// Decodes the `%xx` escapes of a URL piece; a `%` not followed by two hex digits (either case)
/// stays as written. With `plus_is_space`, a `+` is a space, as HTML forms write query values
/// (an escaped `%2B` still decodes to `+`). Borrows the piece when there is nothing to decode.
pub(crate) fn percent_decode(
    piece: &str,
    plus_is_space: bool,
    invalid: InvalidUtf8,
) -> Cow<'_, str> {
    if plus_is_space && piece.contains('+') {
        let spaced = piece.replace('+', " ");
        return Cow::Owned(decode(&spaced, piece, invalid).into_owned());
    }
    decode(piece, piece, invalid)
}

/// Decodes `text`, falling back to `as_written` for [`InvalidUtf8::KeepAsWritten`].
fn decode<'a>(text: &'a str, as_written: &'a str, invalid: InvalidUtf8) -> Cow<'a, str> {
    let decoded = percent_decode_str(text);
    match invalid {
        InvalidUtf8::Replace => decoded.decode_utf8_lossy(),
        InvalidUtf8::KeepAsWritten => decoded.decode_utf8().unwrap_or(Cow::Borrowed(as_written)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_plus() {
        use InvalidUtf8::*;
        let rows: &[(&str, bool, &str)] = &[
            ("caf%C3%A9+au%20lait", true, "café au lait"),
            ("caf%c3%a9", false, "café"),
            ("a+b%", false, "a+b%"),
            ("a+b%2B", true, "a b+"),
            ("%zz%4", false, "%zz%4"),
            ("100%", true, "100%"),
            ("%+4", true, "% 4"),
            ("plain", true, "plain"),
            ("", true, ""),
        ];
        for &(piece, plus, want) in rows {
            for invalid in [KeepAsWritten, Replace] {
                assert_eq!(
                    percent_decode(piece, plus, invalid),
                    want,
                    "{piece} {plus} {invalid:?}"
                );
            }
        }
    }

    #[test]
    fn borrows_when_nothing_is_decoded() {
        for piece in ["plain", "a+b", "%zz"] {
            let decoded = percent_decode(piece, false, InvalidUtf8::Replace);
            assert!(matches!(decoded, Cow::Borrowed(_)), "{piece}");
        }
    }

    #[test]
    fn invalid_utf8() {
        use InvalidUtf8::*;
        assert_eq!(percent_decode("%FF%FE", false, KeepAsWritten), "%FF%FE");
        assert_eq!(percent_decode("%FFok", false, Replace), "\u{FFFD}ok");
        // Half of `é`'s two bytes, then a valid escape.
        assert_eq!(
            percent_decode("caf%C3+%41", true, KeepAsWritten),
            "caf%C3+%41"
        );
        assert_eq!(percent_decode("caf%C3+%41", true, Replace), "caf\u{FFFD} A");
        assert_eq!(
            percent_decode("%EF%BF%BD", false, KeepAsWritten),
            "\u{FFFD}"
        );
    }
}
