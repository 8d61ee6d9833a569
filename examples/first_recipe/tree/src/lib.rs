//! A tiny std-only crate for the first-recipe example.

pub mod shelf;

pub use shelf::{count_jars, count_jars_slowly};

/// How many jars the pantry holds.
pub fn total(shelves: &[Vec<u32>]) -> usize {
    shelves.iter().map(|s| count_jars(s)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_shelf() {
        assert_eq!(total(&[vec![1, 2], vec![3]]), 3);
    }
}
