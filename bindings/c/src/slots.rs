//! A small table of per-message objects C holds (loans being filled, samples being read),
//! each known to C by its index and a generation: using one after it was sent or released,
//! or twice, finds another generation and is refused, and nothing is leaked.

/// The most objects one handle lends at once (more is `NERVE_E_FULL`: C is not releasing).
pub(crate) const MAX_HELD: usize = 256;

/// Objects lent to C.
pub(crate) struct Slots<T> {
    slots: Vec<(u32, Option<T>)>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots { slots: Vec::new() }
    }
}

impl<T> Slots<T> {
    /// Lends `t`: its `(index, generation)`, or `None` when `MAX_HELD` are lent already.
    pub(crate) fn insert(&mut self, t: T) -> Option<(u32, u32)> {
        let index = match self.slots.iter().position(|(_, o)| o.is_none()) {
            Some(i) => i,
            None if self.slots.len() < MAX_HELD => {
                self.slots.push((0, None));
                self.slots.len() - 1
            }
            None => return None,
        };
        let slot = &mut self.slots[index];
        slot.1 = Some(t);
        Some((index as u32, slot.0))
    }

    /// Takes back the object lent as `(index, generation)`; `None` when that one was taken
    /// already (or never lent).
    pub(crate) fn take(&mut self, index: u32, generation: u32) -> Option<T> {
        let slot = self.slots.get_mut(index as usize)?;
        if slot.0 != generation {
            return None;
        }
        let t = slot.1.take()?;
        slot.0 = slot.0.wrapping_add(1);
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_is_taken_once_and_its_next_tenant_is_not_the_old_one() {
        let mut s = Slots::default();
        let (i, g) = s.insert("a").unwrap();
        assert_eq!(s.take(i, g), Some("a"));
        assert_eq!(s.take(i, g), None, "taken twice");
        let (j, h) = s.insert("b").unwrap();
        assert_eq!(
            (j, h),
            (i, g + 1),
            "the slot is reused with a new generation"
        );
        assert_eq!(
            s.take(i, g),
            None,
            "the old generation does not reach the new tenant"
        );
        assert_eq!(s.take(j, h), Some("b"));
    }

    #[test]
    fn lending_is_bounded() {
        let mut s = Slots::default();
        for k in 0..MAX_HELD {
            assert!(s.insert(k).is_some());
        }
        assert!(s.insert(0).is_none());
    }
}
