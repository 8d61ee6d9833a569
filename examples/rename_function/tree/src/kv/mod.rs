//! Paged key/value storage arithmetic.

pub struct Layout {
    pub page_size: usize,
}

impl Layout {
    pub fn pages(&self, tokens: usize) -> usize {
        blocks_needed(tokens, self.page_size)
    }
}

/// The number of pages `tokens` tokens fill, rounding up.
pub fn blocks_needed(tokens: usize, page_size: usize) -> usize {
    tokens.div_ceil(page_size)
}
