//! The AI search the worker hosts, as the popup says it: its status line while it runs, and the
//! refusal of a second question while it does.

use crate::ask::{Busy, RunningAsk};

/// The running search's status line.
impl RunningAsk {
    /// The popup's status line for this search.
    pub fn status(&self) -> String {
        match (&self.progress, self.cancelling) {
            (_, true) => t!("popup_status_cancelling"),
            (Some(progress), false) => progress.message(self.engine),
            (None, false) => t!("popup_status_searching"),
        }
    }
}

/// A question refused while another search runs.
impl Busy {
    /// What the popup says.
    pub fn message(&self) -> String {
        t!("popup_busy_refused", self.question)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::pipeline::Progress;
    use crate::ai::provider::Engine;
    use crate::period::Period;

    #[test]
    fn the_status_line_says_the_step_or_that_the_search_is_winding_down() {
        let rows = [
            (None, false, "Searching your history…"),
            (Some(Progress::Ranking), false, "Ranking…"),
            (Some(Progress::Ranking), true, "Cancelling…"),
            (None, true, "Cancelling…"),
        ];
        for (progress, cancelling, expected) in rows {
            let running = RunningAsk {
                key: "log:1:0".into(),
                question: "cte".into(),
                period: Period::Week,
                engine: Engine::Gemini,
                progress,
                cancelling,
            };
            assert_eq!(running.status(), expected, "{running:?}");
        }
        assert_eq!(
            Busy {
                question: "cte".into()
            }
            .message(),
            "A search is already running (“cte”). Wait for its answer, or cancel it first."
        );
    }
}
