//! Random texts for the unit tests that check a fast search against the byte-by-byte one.

/// A xorshift generator: the same numbers on every run, so a failure can be repeated.
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// One of `list`, at random.
    pub(crate) fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[(self.next() as usize) % list.len()]
    }
}

/// `rounds` texts of up to 79 bytes: letters (`a`, `b`, `c`), so that runs reach past a
/// search's first bytes, and in three rounds out of four one byte of `alphabet` at a random
/// place.
pub(crate) fn texts_with_one_other_byte(seed: u64, alphabet: &[u8], rounds: usize) -> Vec<Vec<u8>> {
    let mut rng = XorShift(seed);
    (0..rounds)
        .map(|round| {
            let len = (rng.next() % 80) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b'a' + (rng.next() % 3) as u8).collect();
            if len > 0 && round % 4 != 0 {
                let at = (rng.next() as usize) % len;
                text[at] = alphabet[(rng.next() as usize) % alphabet.len()];
            }
            text
        })
        .collect()
}
