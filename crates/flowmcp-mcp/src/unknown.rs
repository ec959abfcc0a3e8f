//! What the server says about a name it does not serve: that a member of the endpoint waits for
//! a server parameter ([`until`]), or which served name a mistyped one is close to
//! ([`closest`]). Only names are ever shown, never a value.

/// `not served until A is set`, `… until A and B are set`, `… until A, B and C are set`.
pub(crate) fn until(keys: &[String]) -> String {
    match keys {
        [] => "not served".to_string(),
        [one] => format!("not served until {one} is set"),
        [first @ .., last] => format!("not served until {} and {last} are set", first.join(", ")),
    }
}

/// Names longer than this get no suggestion (nothing served is that long, and the distance
/// costs the product of the lengths).
const LONGEST: usize = 256;

/// The candidate `name` most likely meant, if one is close: the same name in another case, the
/// wire name of a tool `name` is the bare tool name of (`getPublicHolidays` for
/// `getPublicHolidays_holidaykit-net`), or else the nearest by edit distance when at most about
/// one character in five differs. Ties go to the first candidate.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    if name.is_empty() || name.len() > LONGEST {
        return None;
    }
    let wanted = name.to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let lower = candidate.to_lowercase();
        if lower == wanted {
            return Some(candidate);
        }
        // `<tool>_<namespace>`: the client named the tool without its namespace.
        let bare = lower
            .rsplit_once('_')
            .is_some_and(|(tool, _)| tool == wanted);
        let score = if bare {
            0
        } else {
            let limit = (wanted.chars().count().min(lower.chars().count()) / 5).max(1);
            match distance(&wanted, &lower, limit) {
                Some(d) => d,
                None => continue,
            }
        };
        if best.is_none_or(|(b, _)| score < b) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// The edit distance (insertions, deletions, substitutions of characters) between `a` and `b`,
/// when it is at most `limit`.
fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        let mut row_min = current[0];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
            row_min = row_min.min(current[j + 1]);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous.last().copied().filter(|&d| d <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_names_every_variable() {
        assert_eq!(until(&["A".into()]), "not served until A is set");
        assert_eq!(
            until(&["A".into(), "B".into()]),
            "not served until A and B are set"
        );
        assert_eq!(
            until(&["A".into(), "B".into(), "C".into()]),
            "not served until A, B and C are set"
        );
    }

    #[test]
    fn i28_7e_close_names_are_suggested_and_far_ones_are_not() {
        let served = [
            "getPublicHolidays_holidaykit-net",
            "checkWorkingDay_holidaykit-net",
            "getDailyForecast_skycast-io",
        ];
        let c = |n: &str| closest(n, served.iter().copied());
        // A missing letter, another case, the bare tool name.
        assert_eq!(
            c("getPublicHoliday_holidaykit-net"),
            Some("getPublicHolidays_holidaykit-net")
        );
        assert_eq!(
            c("GETPUBLICHOLIDAYS_HOLIDAYKIT-NET"),
            Some("getPublicHolidays_holidaykit-net")
        );
        assert_eq!(c("getDailyForecast"), Some("getDailyForecast_skycast-io"));
        assert_eq!(
            c("checkWorkinDay_holidaykit-ne"),
            Some("checkWorkingDay_holidaykit-net")
        );
        // Nothing close.
        assert_eq!(c("searchBooks_openshelf-org"), None);
        assert_eq!(c("x"), None);
        assert_eq!(c(""), None);
        assert_eq!(c(&"getPublicHolidays".repeat(100)), None);
    }

    #[test]
    fn distance_is_the_edit_distance_within_its_limit() {
        assert_eq!(distance("kitten", "sitting", 3), Some(3));
        assert_eq!(distance("kitten", "sitting", 2), None);
        assert_eq!(distance("", "abc", 3), Some(3));
        assert_eq!(distance("abc", "abc", 0), Some(0));
        assert_eq!(distance("straße", "strasse", 2), Some(2));
    }
}
