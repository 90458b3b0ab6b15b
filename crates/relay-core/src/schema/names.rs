//! "Did you mean ...?" for unknown tool and parameter names.

/// Up to `n` candidates closest to `name` by edit distance, case-insensitively, best first
/// (ties go to the longer common subsequence, then to the candidates' order). Only plausible
/// ones: the names share a subsequence of at least half the longer name, or one contains the
/// other.
pub fn closest_names<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let wanted: Vec<char> = name.to_lowercase().chars().collect();
    let wanted_text: String = wanted.iter().collect();
    let mut scored: Vec<(usize, std::cmp::Reverse<usize>, usize, &'a str)> = Vec::new();
    let mut row = Vec::new();
    for (order, candidate) in candidates.into_iter().enumerate() {
        let lower = candidate.to_lowercase();
        let chars: Vec<char> = lower.chars().collect();
        let distance = levenshtein(&wanted, &chars, &mut row);
        let common = common_subsequence(&wanted, &chars, &mut row);
        let longest = wanted.len().max(chars.len());
        let contains = !wanted.is_empty()
            && !chars.is_empty()
            && (lower.contains(&wanted_text) || wanted_text.contains(&lower));
        if (common > 0 && common * 2 >= longest) || contains {
            scored.push((distance, std::cmp::Reverse(common), order, candidate));
        }
    }
    crate::sorted_map::sort(&mut scored);
    scored.into_iter().take(n).map(|(_, _, _, c)| c).collect()
}

fn levenshtein(a: &[char], b: &[char], row: &mut Vec<usize>) -> usize {
    row.clear();
    row.extend(0..=b.len());
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

fn common_subsequence(a: &[char], b: &[char], row: &mut Vec<usize>) -> usize {
    row.clear();
    row.resize(b.len() + 1, 0);
    for ca in a {
        let mut diagonal = 0;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}
