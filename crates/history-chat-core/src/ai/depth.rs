//! Search depth: how many keywords the model is asked for when it expands the question (the first
//! step of [`crate::ai::pipeline::ai_search`]). The candidate budget stays at 100 whatever the
//! depth ([`crate::ai::budget::CANDIDATE_BUDGET`]); a deeper search only spreads it over more
//! keywords.

use serde::{Deserialize, Serialize};

/// How many keywords a question is expanded into. Stored as `superficial`, `regular`, `exhaustive`
/// or `sheerlock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Depth {
    /// 5 keywords.
    Superficial,
    /// 20 keywords.
    #[default]
    Regular,
    /// 50 keywords.
    Exhaustive,
    /// Up to 100 keywords.
    Sheerlock,
}

impl Depth {
    /// Every depth, shallowest first.
    pub const ALL: [Depth; 4] = [
        Depth::Superficial,
        Depth::Regular,
        Depth::Exhaustive,
        Depth::Sheerlock,
    ];

    /// The most keywords asked of the model (it is told not to pad, so it may give fewer).
    pub const fn keyword_count(self) -> usize {
        match self {
            Depth::Superficial => 5,
            Depth::Regular => 20,
            Depth::Exhaustive => 50,
            Depth::Sheerlock => 100,
        }
    }

    /// The stored value, also the options page's option value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Depth::Superficial => "superficial",
            Depth::Regular => "regular",
            Depth::Exhaustive => "exhaustive",
            Depth::Sheerlock => "sheerlock",
        }
    }

    /// Parses [`Depth::as_str`]'s values.
    pub fn parse(value: &str) -> Option<Depth> {
        Depth::ALL.into_iter().find(|depth| depth.as_str() == value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_values() {
        let rows = [
            (Depth::Superficial, 5, "\"superficial\""),
            (Depth::Regular, 20, "\"regular\""),
            (Depth::Exhaustive, 50, "\"exhaustive\""),
            (Depth::Sheerlock, 100, "\"sheerlock\""),
        ];
        for (depth, count, json) in rows {
            assert_eq!(depth.keyword_count(), count);
            assert_eq!(serde_json::to_string(&depth).unwrap(), json);
            assert_eq!(serde_json::from_str::<Depth>(json).unwrap(), depth);
            assert_eq!(Depth::parse(depth.as_str()), Some(depth));
        }
        assert_eq!(Depth::default(), Depth::Regular);
        assert_eq!(Depth::parse("deep"), None);
    }
}
