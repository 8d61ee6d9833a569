//! Shelves of jars.

/// The number of jars on a shelf.
pub fn count_jars(shelf: &[u32]) -> usize {
    shelf.len()
}

/// The number of jars on a shelf, one at a time.
///
/// Kept from before `count_jars`; nothing calls it any more.
pub fn count_jars_slowly(shelf: &[u32]) -> usize {
    let mut jars = 0;
    for _ in shelf {
        jars += 1;
    }
    jars
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_counts_agree() {
        assert_eq!(count_jars_slowly(&[4, 5]), count_jars(&[4, 5]));
    }

    #[test]
    fn an_empty_shelf_has_no_jars() {
        assert_eq!(count_jars(&[]), 0);
    }
}
