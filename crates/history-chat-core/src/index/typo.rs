//! One-edit typo matching (optimal string alignment: one insertion, deletion, substitution or
//! swap of two neighbours).
//!
//! The vocabulary is scanned, but cheaply: each word keeps a 32-bit *letter signature* (one bit per
//! letter a–z, five for digits, one for everything else) and its length. One edit changes the
//! length by at most one and flips at most two signature bits (a substitution removes a letter and
//! adds one; an insertion or deletion flips at most one; a swap none). So `|len| ≤ 1` and
//! `popcount(sig ^ sig') ≤ 2` is a necessary condition checked on two small integers, and the exact
//! check ([`within_one_edit`], linear) runs only on the few words that pass. On a 100,000-word
//! vocabulary the scan costs well under a millisecond natively (see `examples/index_bench.rs`),
//! with 5 bytes per word instead of the megabytes a deletion-neighbourhood table would need.

/// The letter signature of a folded word.
pub fn signature(word: &str) -> u32 {
    word.chars().fold(0, |sig, c| sig | (1 << bit(c)))
}

fn bit(c: char) -> u32 {
    match c {
        'a'..='z' => c as u32 - 'a' as u32,
        '0'..='9' => 26 + (c as u32 - '0' as u32) % 5,
        _ => 31,
    }
}

/// Whether the cheap filter lets the pair through to [`within_one_edit`].
pub fn may_be_one_edit(sig_a: u32, len_a: usize, sig_b: u32, len_b: usize) -> bool {
    len_a.abs_diff(len_b) <= 1 && (sig_a ^ sig_b).count_ones() <= 2
}

/// Whether `a` and `b` are at most one OSA edit apart (equal words included).
pub fn within_one_edit(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        one_edit(a.as_bytes(), b.as_bytes())
    } else {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        one_edit(&a, &b)
    }
}

fn one_edit<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let Some(i) = short.iter().zip(long).position(|(x, y)| x != y) else {
        return true; // equal, or `long` is `short` plus one trailing element
    };
    if short.len() == long.len() {
        let substitution = short[i + 1..] == long[i + 1..];
        let swap = i + 1 < short.len()
            && short[i] == long[i + 1]
            && short[i + 1] == long[i]
            && short[i + 2..] == long[i + 2..];
        substitution || swap
    } else {
        short[i..] == long[i + 1..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_edit_table() {
        let rows: &[(&str, &str, bool)] = &[
            ("recursive", "recursive", true),
            ("recusrive", "recursive", true),  // swap
            ("recursiv", "recursive", true),   // deletion
            ("recurssive", "recursive", true), // insertion
            ("recorsive", "recursive", true),  // substitution
            ("rceusrive", "recursive", false), // two swaps
            ("recursion", "recursive", false),
            ("cafe", "café", true),
            ("ab", "ba", true),
            ("", "a", true),
            ("abc", "abcde", false),
            ("ﬁlm", "flim", false),
        ];
        for (a, b, expected) in rows {
            assert_eq!(within_one_edit(a, b), *expected, "{a} {b}");
            assert_eq!(within_one_edit(b, a), *expected, "{b} {a}");
            if *expected {
                let (sa, sb) = (signature(a), signature(b));
                let (la, lb) = (a.chars().count(), b.chars().count());
                assert!(may_be_one_edit(sa, la, sb, lb), "filter rejects {a} {b}");
            }
        }
    }
}
