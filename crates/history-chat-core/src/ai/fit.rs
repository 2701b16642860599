//! Fitting the ranking request into a small context window (Chrome's on-device model): first the
//! titles get shorter, then the candidate list does, until the model says the prompt fits.

use crate::ai::model::ContextUse;
use crate::ai::prompts::TITLE_MAX_CHARS;

/// The shortest titles go: still enough words to recognise a page.
pub const MIN_TITLE_CHARS: usize = 40;

/// Each shrink keeps this share of what would exactly fit, so the next measure lands under the
/// window rather than on it (tokens do not scale exactly with lines).
const SAFETY: f64 = 0.9;

/// Rounds of measure-and-shrink at most; each round cuts at least one candidate, usually far more.
pub const MAX_FIT_ROUNDS: usize = 6;

/// How much of the candidate list to send, and how long titles may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// Candidates kept (the first ones: retrieval put the best keywords' pages first).
    pub keep: usize,
    /// Longest title, in characters.
    pub title_chars: usize,
}

impl Fit {
    /// Everything, titles at their usual length.
    pub fn all(candidates: usize) -> Fit {
        Fit {
            keep: candidates,
            title_chars: TITLE_MAX_CHARS,
        }
    }

    /// The next, smaller attempt after `used` did not fit: shorter titles first, then fewer
    /// candidates in proportion to the overflow. `keep` can reach 0 (nothing fits: rank nothing).
    pub fn shrink(self, used: ContextUse) -> Fit {
        if self.title_chars > MIN_TITLE_CHARS {
            return Fit {
                title_chars: MIN_TITLE_CHARS,
                ..self
            };
        }
        let ratio = f64::from(used.available) / f64::from(used.needed.max(1)) * SAFETY;
        let scaled = (self.keep as f64 * ratio).floor() as usize;
        Fit {
            keep: scaled.min(self.keep.saturating_sub(1)),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model whose prompt costs a fixed overhead plus a cost per candidate line, proportional to
    /// the title length: what `measureContextUsage` would say.
    fn measure(fit: Fit, window: u32) -> ContextUse {
        let per_line = 10 + fit.title_chars as u32 / 4;
        ContextUse {
            needed: 200 + per_line * fit.keep as u32,
            available: window,
        }
    }

    fn fit_into(candidates: usize, window: u32) -> (Fit, usize) {
        let mut fit = Fit::all(candidates);
        for round in 0..=MAX_FIT_ROUNDS {
            let used = measure(fit, window);
            if used.fits() || fit.keep == 0 {
                return (fit, round);
            }
            fit = fit.shrink(used);
        }
        (fit, MAX_FIT_ROUNDS + 1)
    }

    #[test]
    fn fitting_shortens_titles_then_drops_candidates_until_it_fits() {
        let rows: &[(usize, u32, Fit)] = &[
            // Everything fits: nothing changes.
            (
                100,
                10_000,
                Fit {
                    keep: 100,
                    title_chars: TITLE_MAX_CHARS,
                },
            ),
            // Shorter titles are enough.
            (
                100,
                2_500,
                Fit {
                    keep: 100,
                    title_chars: MIN_TITLE_CHARS,
                },
            ),
            // Then candidates go, in proportion.
            (
                100,
                1_200,
                Fit {
                    keep: 49,
                    title_chars: MIN_TITLE_CHARS,
                },
            ),
            (
                100,
                600,
                Fit {
                    keep: 19,
                    title_chars: MIN_TITLE_CHARS,
                },
            ),
            // Not even the overhead fits: nothing is ranked.
            (
                100,
                150,
                Fit {
                    keep: 0,
                    title_chars: MIN_TITLE_CHARS,
                },
            ),
            (
                0,
                100,
                Fit {
                    keep: 0,
                    title_chars: TITLE_MAX_CHARS,
                },
            ),
        ];
        for &(candidates, window, expected) in rows {
            let (fit, rounds) = fit_into(candidates, window);
            assert_eq!(
                fit, expected,
                "{candidates} candidates into {window} tokens"
            );
            assert!(
                rounds <= MAX_FIT_ROUNDS,
                "{candidates} into {window}: {rounds} rounds"
            );
            if fit.keep > 0 {
                assert!(measure(fit, window).fits());
            }
        }
    }

    #[test]
    fn every_shrink_makes_progress() {
        let fit = Fit {
            keep: 10,
            title_chars: MIN_TITLE_CHARS,
        };
        let barely_over = ContextUse {
            needed: 1_001,
            available: 1_000,
        };
        assert_eq!(fit.shrink(barely_over).keep, 8);
        assert_eq!(Fit { keep: 0, ..fit }.shrink(barely_over).keep, 0);
        let absurd = ContextUse {
            needed: 0,
            available: 0,
        };
        assert_eq!(fit.shrink(absurd).keep, 0);
    }
}
