//! Removing `# rspec-testing:` marker lines from a finished spec (contract §4.12,
//! `strip_rspec_testing_markers`). Only marker lines go; every other byte stays, and no
//! newline is added at the end (the original script added one per run).

use super::markers;
use super::source::SpecText;

/// The text without marker lines, and how many were removed.
pub fn strip(text: &SpecText) -> (SpecText, usize) {
    let before = text.lines.len();
    let lines: Vec<String> = text
        .lines
        .iter()
        .filter(|line| markers::tag(line).is_none())
        .cloned()
        .collect();
    let removed = before - lines.len();
    (
        SpecText {
            bom: text.bom,
            lines,
        },
        removed,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_marker_lines_only() {
        let src = "\u{feff}describe '#a' do\r\n  # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\r\n\r\n  it 'x' do # rspec-testing:example kept\r\n    # rspec-testing:example behavior_id=\"b\"\r\n  end\r\n  #rspec-testing:method_end\r\n  # rspec-testing: not a marker\r\nend";
        let (out, removed) = strip(&SpecText::from_text(src));
        assert_eq!(removed, 3);
        assert_eq!(
            String::from_utf8(out.to_bytes()).unwrap(),
            "\u{feff}describe '#a' do\r\n\r\n  it 'x' do # rspec-testing:example kept\r\n  end\r\n  # rspec-testing: not a marker\r\nend"
        );
    }

    #[test]
    fn a_file_without_markers_is_unchanged() {
        let src = "a\n\nb\n";
        let (out, removed) = strip(&SpecText::from_text(src));
        assert_eq!(removed, 0);
        assert_eq!(String::from_utf8(out.to_bytes()).unwrap(), src);
    }
}
