//! The battery, as the browser tells it (`navigator.getBattery()`): the background builds (topic
//! search's, the pages' content's) pause while the computer runs on a low battery, where the
//! operating systems' battery savers come on, and go on once it is charging or charged again.

use serde::{Deserialize, Serialize};

/// At or below this charge (a fraction of full), on battery, the background builds pause: where
/// Windows' and macOS's battery savers come on by default (20%).
pub const LOW_BATTERY_LEVEL: f64 = 0.2;

/// The battery's state, as the browser reports it. A computer with no battery reports itself
/// charging and full.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Battery {
    /// Plugged in.
    pub charging: bool,
    /// The charge, from 0 to 1.
    pub level: f64,
}

impl Battery {
    /// Whether background work should wait: on battery and at or below [`LOW_BATTERY_LEVEL`]. A
    /// level that is not a number in 0..=1 says nothing, and is not low.
    pub fn is_low(self) -> bool {
        !self.charging && (0.0..=LOW_BATTERY_LEVEL).contains(&self.level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_low_battery_not_charging_is_low() {
        // (charging, level, low)
        let rows = [
            (true, 1.0, false),
            (true, 0.05, false),
            (false, 1.0, false),
            (false, 0.21, false),
            (false, 0.2, true),
            (false, 0.05, true),
            (false, 0.0, true),
            (false, -0.1, false),
            (false, f64::NAN, false),
            (false, f64::INFINITY, false),
        ];
        for (charging, level, low) in rows {
            assert_eq!(
                Battery { charging, level }.is_low(),
                low,
                "charging {charging}, level {level}"
            );
        }
    }

    #[test]
    fn the_wire_shape() {
        let battery: Battery =
            serde_json::from_value(serde_json::json!({"charging": false, "level": 0.15})).unwrap();
        assert!(battery.is_low());
    }
}
