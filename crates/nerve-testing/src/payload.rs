//! Deterministic test payloads: every word derived from who sent it and when, so a receiver
//! recomputes what it should have got and checks every byte.

/// A well-mixed 64-bit word from (sender, sequence, index) — splitmix-style finaliser.
pub fn mix(sender: u32, seq: u64, i: u64) -> u64 {
    let mut x = (sender as u64) << 48
        ^ seq.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ i.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 31;
    x.wrapping_mul(0x94D0_49BB_1331_11EB)
}

/// FNV-1a over every byte.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Fills `data` with a pattern determined by (sender, seq): a linear congruential stream
/// seeded by [`mix`].
pub fn fill(sender: u32, seq: u64, data: &mut [u8]) {
    let mut x = mix(sender, seq, 0);
    for chunk in data.chunks_mut(8) {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_differ_by_sender_and_sequence_and_fnv_sees_one_bit() {
        let (mut a, mut b, mut c) = ([0u8; 64], [0u8; 64], [0u8; 64]);
        fill(1, 7, &mut a);
        fill(2, 7, &mut b);
        fill(1, 8, &mut c);
        assert_ne!(a, b);
        assert_ne!(a, c);
        let h = fnv1a(&a);
        a[63] ^= 1;
        assert_ne!(h, fnv1a(&a));
    }
}
