//! Lines of code: non-blank lines holding at least one byte that is neither white space nor
//! part of a comment. `=begin/=end` blocks are comments; heredoc bodies are code; the
//! `__END__` data section is not code.

/// Counts code lines. `comments` are byte ranges `[start, end)` sorted by start, as prism
/// reports them; `data_start` is where `__END__` begins, if the file has it.
///
/// One pass over the lines (memchr finds each end): a line's bytes are looked at only up
/// to its first one that is neither blank nor in a comment.
#[cfg(test)]
pub fn count_loc(source: &[u8], comments: &[(usize, usize)], data_start: Option<usize>) -> u32 {
    // No line table: the lines are searched for.
    count_lines_and_loc(source, comments, data_start, &[]).1
}

/// The file's line count (as [`super::parse`] reports it: a last line without a newline
/// counts) and its code lines ([`count_loc`]), from one pass over the lines.
///
/// `line_starts` is where prism says each line starts (prism's own line table, built while
/// it read the file): when it agrees with the text (every start follows a newline and
/// there are as many as the text has newlines), lines are taken from it instead of
/// searching for each newline again, which cost a search call per line. Otherwise the
/// lines are found by searching.
pub fn count_lines_and_loc(
    source: &[u8],
    comments: &[(usize, usize)],
    data_start: Option<usize>,
    line_starts: &[u32],
) -> (u32, u32) {
    let limit = data_start.unwrap_or(source.len()).min(source.len());
    let text = source.get(..limit).unwrap_or_default();
    let rest = source.get(limit..).unwrap_or_default();
    let text_newlines = count_byte(text, b'\n');
    let newline_count = text_newlines + count_byte(rest, b'\n');
    let last_unterminated = usize::from(source.last().is_some_and(|&b| b != b'\n'));
    let lines = u32::try_from(newline_count + last_unterminated).unwrap_or(u32::MAX);
    // A UTF-8 byte order mark is not code.
    let first = if text.starts_with(&[0xEF, 0xBB, 0xBF]) {
        3
    } else {
        0
    };
    let loc = match text_line_ends(text, line_starts, text_newlines) {
        Some(ends) => loc_of_lines(text, first, ends, comments),
        None => loc_of_lines(text, first, memchr::memchr_iter(b'\n', text), comments),
    };
    (lines, loc)
}

/// The newline positions of `text` from prism's line starts, if they are exactly the
/// text's `newlines` newlines (each start right after a newline, in order).
fn text_line_ends<'a>(
    text: &'a [u8],
    line_starts: &'a [u32],
    newlines: usize,
) -> Option<impl Iterator<Item = usize> + 'a> {
    // Starts after the first line, up to the end of the text.
    let starts = line_starts.get(1..)?;
    let inside = starts.partition_point(|&s| (s as usize) <= text.len());
    let starts = starts.get(..inside)?;
    if starts.len() != newlines {
        return None;
    }
    let mut previous = 0usize;
    for &s in starts {
        let s = s as usize;
        if s <= previous || text.get(s - 1) != Some(&b'\n') {
            return None;
        }
        previous = s;
    }
    Some(starts.iter().map(|&s| s as usize - 1))
}

/// Counts the code lines of `text`, whose newlines are `ends` (in order), from `first`.
fn loc_of_lines(
    text: &[u8],
    first: usize,
    mut ends: impl Iterator<Item = usize>,
    comments: &[(usize, usize)],
) -> u32 {
    let mut line_start = first;
    let mut count: u32 = 0;
    let mut cursor = 0usize; // index into `comments`
    while line_start <= text.len() {
        let line_end = ends.next().unwrap_or(text.len());
        if line_end >= line_start
            && line_has_code(text, line_start, line_end, comments, &mut cursor)
        {
            count = count.saturating_add(1);
        }
        line_start = line_end + 1;
    }
    count
}

/// How many times `byte` occurs in `hay`. Counted in a byte per block of 255 (it cannot
/// wrap), which the compiler turns into vector compares: about 0.2 instructions a byte,
/// where searching match by match (memchr) cost a call per match and summing into a
/// `usize` did not vectorise.
pub(crate) fn count_byte(hay: &[u8], byte: u8) -> usize {
    hay.chunks(255)
        .map(|block| {
            let n = block
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == byte)));
            usize::from(n)
        })
        .sum()
}

/// Whether `text[start..end)` (one line, without its newline) holds a byte that is neither
/// blank nor in a comment. `cursor` moves forward through `comments` as lines go by.
fn line_has_code(
    text: &[u8],
    start: usize,
    end: usize,
    comments: &[(usize, usize)],
    cursor: &mut usize,
) -> bool {
    let mut pos = skip_spaces(text, start, end);
    while pos < end {
        let Some(&byte) = text.get(pos) else {
            return false;
        };
        if is_blank(byte) {
            pos += 1;
            continue;
        }
        while comments
            .get(*cursor)
            .is_some_and(|&(_, c_end)| c_end <= pos)
        {
            *cursor += 1;
        }
        match comments.get(*cursor) {
            Some(&(c_start, c_end)) if c_start <= pos && pos < c_end => {
                // Skip to the end of the comment or the line, whichever comes first.
                pos = c_end.min(end).max(pos + 1);
            }
            _ => return true,
        }
    }
    false
}

/// The first position from `pos` (below `end`) that is not a space, eight bytes at a time
/// through indentation.
pub(crate) fn skip_spaces(text: &[u8], mut pos: usize, end: usize) -> usize {
    const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
    while let Some(chunk) = text.get(pos..end).and_then(|rest| rest.first_chunk::<8>()) {
        let diff = u64::from_le_bytes(*chunk) ^ SPACES;
        if diff != 0 {
            // The first byte that differs from a space.
            return pos + (diff.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while text.get(pos).is_some_and(|&b| b == b' ') && pos < end {
        pos += 1;
    }
    pos
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

    /// The byte-at-a-time count this file had before, kept to check the line-wise one.
    fn count_loc_reference(
        source: &[u8],
        comments: &[(usize, usize)],
        data_start: Option<usize>,
    ) -> u32 {
        let limit = data_start.unwrap_or(source.len()).min(source.len());
        let mut count: u32 = 0;
        let mut cursor = 0usize;
        let mut pos = if source.starts_with(&[0xEF, 0xBB, 0xBF]) {
            3
        } else {
            0
        };
        let mut line_has_code = false;
        while pos < limit {
            let byte = source[pos];
            if byte == b'\n' {
                if line_has_code {
                    count += 1;
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
                    let comment_end = comments[cursor].1;
                    let line_end = source[pos..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(limit, |p| pos + p);
                    pos = comment_end.min(line_end).max(pos + 1);
                    continue;
                }
                line_has_code = true;
            }
            pos += 1;
        }
        if line_has_code {
            count += 1;
        }
        count
    }

    #[test]
    fn count_byte_counts_every_match_at_every_length() {
        for len in [0usize, 1, 15, 16, 254, 255, 256, 511, 4080, 5000] {
            // All newlines: a block of 255 holds 255 matches without wrapping.
            assert_eq!(count_byte(&vec![b'\n'; len], b'\n'), len);
            let mixed: Vec<u8> = (0..len)
                .map(|i| if i % 3 == 0 { b'\n' } else { b'a' })
                .collect();
            assert_eq!(count_byte(&mixed, b'\n'), len.div_ceil(3));
        }
    }

    #[test]
    fn line_wise_count_agrees_with_the_byte_wise_one() {
        let sources = [
            "",
            "\n",
            "x",
            "\u{feff}\n# c\nx = 1",
            "\u{feff}x\n",
            "  # a\n\t\n  x # b\n=begin\n  y\n=end\nz\n",
            "=begin\ndoc\n=end\n=begin\n\n=end\n  ",
            "a = <<~T\n  # in heredoc\n\n  b\nT\n# c\n\r\n \x0b\x0c\n",
            "x = 1 # c\n  # d\n__END__\ny\n# z\n",
            "def a = 1; # x\n  ;\n",
            "# only a comment",
            "x\n\n\n   \n",
            "x = <<~A + <<~B\n  a\n\n  # not a comment\nA\n  b\nB\ny # c\n",
            "s = \"multi\n\nline\" # c\n%w[\n a\n]\n",
            "def broken(\n  x\n\n# c\n",
            "x\r\n\r\n# c\r\ny\r\n__END__\r\nz\r\n",
        ];
        for src in sources {
            let result = ruby_prism::parse(src.as_bytes());
            let comments: Vec<(usize, usize)> = result
                .comments()
                .map(|c| (c.location().start() as usize, c.location().end() as usize))
                .collect();
            let data = result.data_loc().map(|l| l.start() as usize);
            assert_eq!(
                count_loc(src.as_bytes(), &comments, data),
                count_loc_reference(src.as_bytes(), &comments, data),
                "{src:?}"
            );
            // Every line, the data section's too; a last line without a newline counts.
            let lines = src.split_inclusive('\n').count();
            // Lines from prism's line table and lines searched for agree.
            let reference = count_loc_reference(src.as_bytes(), &comments, data);
            for starts in [result.line_offsets(), &[]] {
                let (counted, loc) = count_lines_and_loc(src.as_bytes(), &comments, data, starts);
                assert_eq!(counted as usize, lines, "{src:?}");
                assert_eq!(loc, reference, "{src:?}");
            }
            // Prism's table is the one used on real text (not the search).
            let text = src
                .as_bytes()
                .get(..data.unwrap_or(src.len()))
                .unwrap_or_default();
            let newlines = count_byte(text, b'\n');
            assert!(
                text_line_ends(text, result.line_offsets(), newlines).is_some(),
                "{src:?}"
            );
            // A line table that disagrees with the text is not used.
            let wrong: Vec<u32> = result.line_offsets().iter().map(|&s| s + 1).collect();
            let (counted, loc) = count_lines_and_loc(src.as_bytes(), &comments, data, &wrong);
            assert_eq!((counted as usize, loc), (lines, reference), "{src:?}");
        }
    }

    #[test]
    fn skip_spaces_stops_at_the_first_other_byte_or_the_end() {
        let text = b"            x  \t  ";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let expected = (start..end).find(|&i| text[i] != b' ').unwrap_or(end);
                assert_eq!(skip_spaces(text, start, end), expected, "{start}..{end}");
            }
        }
    }

    #[test]
    fn byte_order_mark_alone_is_not_code() {
        assert_eq!(count_loc(&[0xEF, 0xBB, 0xBF, b'\n'], &[], None), 0);
    }
}
