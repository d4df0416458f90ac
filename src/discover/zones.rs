//! Complexity zones: green, yellow or red by the worst of LOC and method count.

use serde::Deserialize;

pub use crate::vocab::Zone;

/// Complexity zone thresholds (PRODUCT.md: green below both yellow marks, red above either
/// red mark).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ZoneThresholds {
    /// LOC at which a file turns yellow.
    pub yellow_loc: u32,
    /// LOC above which a file is red.
    pub red_loc: u32,
    /// Method count at which a file turns yellow.
    pub yellow_methods: u32,
    /// Method count above which a file is red.
    pub red_methods: u32,
}

impl Default for ZoneThresholds {
    fn default() -> Self {
        ZoneThresholds {
            yellow_loc: 150,
            red_loc: 300,
            yellow_methods: 7,
            red_methods: 12,
        }
    }
}

/// The zone of a file with `loc` code lines and `methods` methods.
pub fn zone(loc: u32, methods: usize, t: &ZoneThresholds) -> Zone {
    let methods = u32::try_from(methods).unwrap_or(u32::MAX);
    if loc > t.red_loc || methods > t.red_methods {
        Zone::Red
    } else if loc >= t.yellow_loc || methods >= t.yellow_methods {
        Zone::Yellow
    } else {
        Zone::Green
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_of_both_scales_with_product_thresholds() {
        let t = ZoneThresholds::default();
        assert_eq!(zone(149, 6, &t), Zone::Green);
        assert_eq!(zone(150, 6, &t), Zone::Yellow);
        assert_eq!(zone(20, 7, &t), Zone::Yellow);
        assert_eq!(zone(300, 12, &t), Zone::Yellow);
        assert_eq!(zone(301, 1, &t), Zone::Red);
        assert_eq!(zone(10, 13, &t), Zone::Red);
    }
}
