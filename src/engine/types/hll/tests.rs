//! Tests of the HyperLogLog representation: both encodings, their agreement, corrupt input and the self test.

use super::repr::*;
use super::*;

#[test]
fn empty_value_is_one_xzero() {
    let s = new_sparse();
    assert_eq!(s.len(), 18);
    assert_eq!(&s[16..], &[0x7f, 0xff]);
    assert_eq!(check(&s), Ok(Encoding::Sparse));
    assert_eq!(count(&s), Ok(0));
    assert_eq!(cached(&s), Some(0));
}

#[test]
fn dense_registers_do_not_disturb_neighbours() {
    let mut regs = vec![0u8; DENSE_LEN - HEADER_LEN];
    let mut rng = fastrand::Rng::with_seed(3);
    let want: Vec<u8> = (0..REGISTERS).map(|_| rng.u8(0..64)).collect();
    for (i, &v) in want.iter().enumerate() {
        dense_write(&mut regs, i, v);
    }
    for (i, &v) in want.iter().enumerate() {
        assert_eq!(dense_get(&regs, i), v, "register {i}");
    }
}

#[test]
fn self_test_passes_at_reduced_size() {
    let mut rng = fastrand::Rng::with_seed(5);
    let size = SelfTestSize {
        register_rounds: 3,
        elements: 100_000,
    };
    assert_eq!(
        self_test(size, DEFAULT_SPARSE_MAX_BYTES, || rng.u32(..) >> 1),
        Ok(())
    );
}

#[test]
fn sparse_and_dense_agree() {
    let mut sparse = new_sparse();
    let mut dense = new_sparse();
    to_dense(&mut dense).unwrap();
    for i in 0..2000u32 {
        let e = i.to_le_bytes();
        add(&mut sparse, &e, u64::MAX).unwrap();
        add(&mut dense, &e, u64::MAX).unwrap();
    }
    assert_eq!(check(&sparse), Ok(Encoding::Sparse));
    assert_eq!(count(&sparse), count(&dense));
    assert_eq!(registers(&sparse), registers(&dense));
}

#[test]
fn corrupt_sparse_never_panics() {
    for tail in [
        &[][..],
        &[0x40],
        &[0x7f],
        &[0x00],
        &[0xff, 0xff],
        &[0x7f, 0xff, 0x00],
    ] {
        let mut s = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\0".to_vec();
        s.extend_from_slice(tail);
        let _ = count(&s);
        let _ = registers(&s);
        let _ = decode_sparse(&s);
        for i in [0usize, 1, 100, 16383] {
            let mut t = s.clone();
            let _ = set_register(&mut t, i, 5, 3000);
            let mut t = s.clone();
            let _ = set_register(&mut t, i, 40, 3000);
        }
    }
}
