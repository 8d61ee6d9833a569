//! A tiny std-only crate for the rename example.

pub mod kv;

pub use kv::blocks_needed;

/// How many pages a batch of sequences needs.
pub fn batch_pages(lengths: &[usize], page_size: usize) -> usize {
    lengths.iter().map(|&n| kv::blocks_needed(n, page_size)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_up() {
        assert_eq!(blocks_needed(17, 16), 2);
        assert_eq!(crate::kv::blocks_needed(16, 16), 1);
    }
}
