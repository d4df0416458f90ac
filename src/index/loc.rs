//! Lines of code: non-blank lines holding at least one byte that is neither white space nor
//! part of a comment. `=begin/=end` blocks are comments; heredoc bodies are code; the
//! `__END__` data section is not code.

/// Counts code lines. `comments` are byte ranges `[start, end)` sorted by start, as prism
/// reports them; `data_start` is where `__END__` begins, if the file has it.
pub fn count_loc(source: &[u8], comments: &[(usize, usize)], data_start: Option<usize>) -> u32 {
    let limit = data_start.unwrap_or(source.len()).min(source.len());
    let mut count: u32 = 0;
    let mut cursor = 0usize; // index into `comments`
                             // A UTF-8 byte order mark is not code.
    let mut pos = if source.starts_with(&[0xEF, 0xBB, 0xBF]) {
        3
    } else {
        0
    };
    let mut line_has_code = false;
    while pos < limit {
        let Some(&byte) = source.get(pos) else { break };
        if byte == b'\n' {
            if line_has_code {
                count = count.saturating_add(1);
            }
            line_has_code = false;
            pos += 1;
            continue;
        }
        if !line_has_code && !is_blank(byte) {
            while comments.get(cursor).is_some_and(|&(_, end)| end <= pos) {
                cursor += 1;
            }
            let in_comment = comments
                .get(cursor)
                .is_some_and(|&(start, end)| start <= pos && pos < end);
            if in_comment {
                // Skip to the end of the comment or the line, whichever comes first.
                let comment_end = comments.get(cursor).map_or(pos + 1, |&(_, end)| end);
                let line_end = source
                    .get(pos..)
                    .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
                    .map_or(limit, |p| pos + p);
                pos = comment_end.min(line_end).max(pos + 1);
                continue;
            }
            line_has_code = true;
            // The rest of the line cannot change the answer: jump to its end.
            match source
                .get(pos..limit)
                .and_then(|rest| memchr::memchr(b'\n', rest))
            {
                Some(offset) => {
                    pos += offset;
                    continue;
                }
                None => break,
            }
        }
        pos += 1;
    }
    if line_has_code {
        count = count.saturating_add(1);
    }
    count
}

fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(src: &str) -> u32 {
        let result = ruby_prism::parse(src.as_bytes());
        let comments: Vec<(usize, usize)> = result
            .comments()
            .map(|c| (c.location().start() as usize, c.location().end() as usize))
            .collect();
        let data = result.data_loc().map(|l| l.start() as usize);
        count_loc(src.as_bytes(), &comments, data)
    }

    #[test]
    fn blank_and_comment_lines_do_not_count() {
        assert_eq!(
            loc("# a comment\n\nclass A\n  # inside\n  def x; end # trailing\nend\n"),
            3
        );
    }

    #[test]
    fn embedded_documentation_does_not_count() {
        assert_eq!(loc("=begin\nsome docs\n  more\n=end\nx = 1\n"), 1);
    }

    #[test]
    fn heredoc_bodies_count_as_code_but_their_blank_lines_do_not() {
        let src = "sql = <<~SQL\n  SELECT *\n\n  FROM t # not a comment\nSQL\n";
        assert_eq!(loc(src), 4);
    }

    #[test]
    fn hash_inside_a_string_is_code() {
        assert_eq!(loc("x = \"# not a comment\"\n"), 1);
    }

    #[test]
    fn data_section_does_not_count() {
        assert_eq!(loc("x = 1\n__END__\nthis is data\nmore data\n"), 1);
    }

    #[test]
    fn last_line_without_newline_counts() {
        assert_eq!(loc("x = 1\ny = 2"), 2);
    }

    #[test]
    fn byte_order_mark_alone_is_not_code() {
        assert_eq!(count_loc(&[0xEF, 0xBB, 0xBF, b'\n'], &[], None), 0);
    }
}
