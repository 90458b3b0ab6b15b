//! "Did you mean ...?" for unknown tool and parameter names.

/// Up to `n` candidates closest to `name` by edit distance, case-insensitively, best first
/// (ties keep the candidates' order). Only plausible ones: at most half of the longer name
/// may differ, or one name contains the other.
pub fn closest_names<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<&'a str> {
    let wanted: Vec<char> = name.to_lowercase().chars().collect();
    let wanted_text: String = wanted.iter().collect();
    let mut scored: Vec<(usize, usize, &'a str)> = Vec::new();
    let mut row = Vec::new();
    for (order, candidate) in candidates.into_iter().enumerate() {
        let lower = candidate.to_lowercase();
        let chars: Vec<char> = lower.chars().collect();
        let distance = levenshtein(&wanted, &chars, &mut row);
        let longest = wanted.len().max(chars.len());
        let contains = !wanted.is_empty() && !chars.is_empty() && (lower.contains(&wanted_text) || wanted_text.contains(&lower));
        if distance * 2 <= longest || contains {
            scored.push((distance, order, candidate));
        }
    }
    scored.sort_by_key(|&(distance, order, _)| (distance, order));
    scored.into_iter().take(n).map(|(_, _, c)| c).collect()
}

fn levenshtein(a: &[char], b: &[char], row: &mut Vec<usize>) -> usize {
    row.clear();
    row.extend(0..=b.len());
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb { diagonal } else { 1 + diagonal.min(above).min(row[j]) };
            diagonal = above;
        }
    }
    row[b.len()]
}
