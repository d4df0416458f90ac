//! Method selection by glob on method ids (`--only Payment#*`, `--exclude *#call`).

use globset::{GlobBuilder, GlobMatcher};

use crate::error::{Error, Result};

/// The skip reason for methods a pattern filter deselected (the contract's text).
pub const PATTERN_FILTER: &str = "Custom: pattern filter";

/// Compiled `--only` and `--exclude` patterns.
#[derive(Debug, Default)]
pub struct Filter {
    only: Vec<(String, GlobMatcher)>,
    exclude: Vec<(String, GlobMatcher)>,
}

fn compile(patterns: &[String]) -> Result<Vec<(String, GlobMatcher)>> {
    patterns
        .iter()
        .map(|p| {
            GlobBuilder::new(p)
                .literal_separator(false)
                .backslash_escape(true)
                .build()
                .map(|g| (p.clone(), g.compile_matcher()))
                .map_err(|e| Error::Usage {
                    message: format!("bad method pattern {p:?}: {e}"),
                })
        })
        .collect()
}

impl Filter {
    /// Compiles the patterns; a bad glob is a usage error.
    pub fn new(only: &[String], exclude: &[String]) -> Result<Self> {
        Ok(Filter {
            only: compile(only)?,
            exclude: compile(exclude)?,
        })
    }

    /// Whether there is any pattern.
    pub fn is_empty(&self) -> bool {
        self.only.is_empty() && self.exclude.is_empty()
    }

    /// Whether the method id survives the filter.
    pub fn keeps(&self, method_id: &str) -> bool {
        let included = self.only.is_empty() || self.only.iter().any(|(_, g)| g.is_match(method_id));
        included && !self.exclude.iter().any(|(_, g)| g.is_match(method_id))
    }

    /// Patterns that match none of `ids`, for a warning.
    pub fn unmatched<'a>(&'a self, ids: &[String]) -> Vec<&'a str> {
        self.only
            .iter()
            .chain(&self.exclude)
            .filter(|(_, g)| !ids.iter().any(|id| g.is_match(id)))
            .map(|(p, _)| p.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_and_exclude_on_method_ids() {
        let f = Filter::new(
            &["Payment#*".into(), "Billing::*".into()],
            &["*#call".into()],
        )
        .unwrap();
        assert!(f.keeps("Payment#charge"));
        assert!(!f.keeps("Payment.for_period"));
        assert!(f.keeps("Billing::Invoice#total"));
        assert!(!f.keeps("Billing::Invoice#call"));
        assert!(!f.keeps("Order#ship!"));
        let ids = vec!["Payment#charge".to_string()];
        assert_eq!(f.unmatched(&ids), vec!["Billing::*", "*#call"]);
    }

    #[test]
    fn operator_ids_can_be_matched_with_escapes() {
        let f = Filter::new(&["Matrix#\\[\\]".into()], &[]).unwrap();
        assert!(f.keeps("Matrix#[]"));
        assert!(Filter::new(&["[".into()], &[]).is_err());
    }
}
