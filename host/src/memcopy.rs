//! `memcpy` and `memmove` for the static (musl) binary.
//!
//! musl's x86-64 `memcpy` is `rep movsq` plus a byte loop, and its `memmove` falls back to it:
//! slow to start on the short copies that dominate here. Every `memory.copy` of the guest is a
//! wasmtime libcall into the host's `memmove` (each string serde_json decodes, each `Vec` that
//! grows), so in the static binary it was 15 % of a whole `podmut check` (BENCHMARKS.md,
//! "The CLI"). glibc picks a vectorised copy per CPU; glibc builds keep it (this
//! module exports nothing there).
//!
//! Written here because no well-kept crate fits: `rlibc` and `polished_memory` copy byte by byte
//! for freestanding targets, `compiler_builtins`' `mem` feature needs a nightly compiler (and is
//! `rep movs` for every size, the slow start this replaces), `origin`'s copies are that same code
//! behind a whole program-startup replacement, and `nostd-musl` is musl's C.
//!
//! The scheme: up to [`SMALL`] bytes, a fixed set of possibly overlapping loads, all done before
//! any store (so correct for overlapping buffers in either direction, no loop); beyond, `rep movsb`
//! forwards (fast strings, ERMSB/FSRM) and, for a `memmove` whose destination starts inside its
//! source, a 16-byte loop from the end. The loops are inline assembly: a Rust loop of loads and
//! stores could be turned back into a call to `memcpy` by the compiler, i.e. into itself.

use core::arch::asm;
use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};

/// Copies of at most this many bytes take the straight-line path.
const SMALL: usize = 128;

/// Copy `n` bytes from `s` to `d` (`memcpy`): the regions must not overlap.
///
/// # Safety
/// `s` readable and `d` writable for `n` bytes.
#[expect(unsafe_code, reason = "raw memory copy")]
pub(crate) unsafe fn copy_forward(d: *mut u8, s: *const u8, n: usize) {
    // SAFETY: the caller's contract; forward `rep movsb` is also correct when `d` < `s` overlap.
    unsafe {
        if n <= SMALL {
            copy_small(d, s, n);
        } else {
            asm!(
                "rep movsb",
                inout("rcx") n => _,
                inout("rdi") d => _,
                inout("rsi") s => _,
                options(nostack, preserves_flags),
            );
        }
    }
}

/// Copy `n` bytes from `s` to `d` (`memmove`): the regions may overlap.
///
/// # Safety
/// `s` readable and `d` writable for `n` bytes.
#[expect(unsafe_code, reason = "raw memory copy")]
pub(crate) unsafe fn copy(d: *mut u8, s: *const u8, n: usize) {
    // SAFETY: the caller's contract. A forward copy is correct unless `d` lies in (`s`, `s + n`):
    // then the backward loop reads every source block before a store can reach it.
    unsafe {
        if n <= SMALL || (d as usize).wrapping_sub(s as usize) >= n {
            copy_forward(d, s, n);
        } else {
            copy_backward_large(d, s, n);
        }
    }
}

/// `d` in (`s`, `s + n`), `n` > 16: 16-byte blocks from the end; the first 16 bytes are loaded
/// before any store and stored last.
#[expect(unsafe_code, reason = "raw memory copy")]
unsafe fn copy_backward_large(d: *mut u8, s: *const u8, n: usize) {
    // SAFETY: the caller's contract; every access is within the first `n` bytes of `s` / `d`.
    // Each block is loaded from below the lowest byte stored so far (`s` < `d`).
    unsafe {
        let head = load16(s, 0);
        asm!(
            "2:",
            "sub {i}, 16",
            "movdqu {x}, xmmword ptr [{s} + {i}]",
            "movdqu xmmword ptr [{d} + {i}], {x}",
            "cmp {i}, 16",
            "ja 2b",
            i = inout(reg) n => _,
            s = in(reg) s,
            d = in(reg) d,
            x = out(xmm_reg) _,
            options(nostack),
        );
        store16(d, 0, head);
    }
}

/// Up to [`SMALL`] bytes: all loads (overlapping each other when `n` is not a block size), then
/// all stores.
#[expect(unsafe_code, reason = "raw memory copy")]
#[inline(always)]
unsafe fn copy_small(d: *mut u8, s: *const u8, n: usize) {
    // SAFETY: `n` <= SMALL and the caller's contract; every offset below plus its width is <= n.
    unsafe {
        if n <= 16 {
            copy_upto16(d, s, n);
        } else if n <= 32 {
            let (a, b) = (load16(s, 0), load16(s, n - 16));
            store16(d, 0, a);
            store16(d, n - 16, b);
        } else if n <= 64 {
            let (a, b) = (load16(s, 0), load16(s, 16));
            let (c, e) = (load16(s, n - 32), load16(s, n - 16));
            store16(d, 0, a);
            store16(d, 16, b);
            store16(d, n - 32, c);
            store16(d, n - 16, e);
        } else {
            let head = [load16(s, 0), load16(s, 16), load16(s, 32), load16(s, 48)];
            let tail = [
                load16(s, n - 64),
                load16(s, n - 48),
                load16(s, n - 32),
                load16(s, n - 16),
            ];
            for (k, v) in head.into_iter().enumerate() {
                store16(d, 16 * k, v);
            }
            for (k, v) in tail.into_iter().enumerate() {
                store16(d, n - 64 + 16 * k, v);
            }
        }
    }
}

#[expect(unsafe_code, reason = "raw memory copy")]
#[inline(always)]
unsafe fn copy_upto16(d: *mut u8, s: *const u8, n: usize) {
    // SAFETY: `n` <= 16 and the caller's contract: each pair of loads covers [0, n).
    unsafe {
        if n >= 8 {
            let a = s.cast::<u64>().read_unaligned();
            let b = s.add(n - 8).cast::<u64>().read_unaligned();
            d.cast::<u64>().write_unaligned(a);
            d.add(n - 8).cast::<u64>().write_unaligned(b);
        } else if n >= 4 {
            let a = s.cast::<u32>().read_unaligned();
            let b = s.add(n - 4).cast::<u32>().read_unaligned();
            d.cast::<u32>().write_unaligned(a);
            d.add(n - 4).cast::<u32>().write_unaligned(b);
        } else if n >= 2 {
            let a = s.cast::<u16>().read_unaligned();
            let b = s.add(n - 2).cast::<u16>().read_unaligned();
            d.cast::<u16>().write_unaligned(a);
            d.add(n - 2).cast::<u16>().write_unaligned(b);
        } else if n == 1 {
            d.write(s.read());
        }
    }
}

#[expect(unsafe_code, reason = "raw memory copy")]
#[inline(always)]
unsafe fn load16(s: *const u8, at: usize) -> __m128i {
    // SAFETY: the callers read within their source; SSE2 is baseline on x86-64.
    unsafe { _mm_loadu_si128(s.add(at).cast()) }
}

#[expect(unsafe_code, reason = "raw memory copy")]
#[inline(always)]
unsafe fn store16(d: *mut u8, at: usize, v: __m128i) {
    // SAFETY: the callers write within their destination; SSE2 is baseline on x86-64.
    unsafe { _mm_storeu_si128(d.add(at).cast(), v) }
}

/// The C library's `memcpy` for the whole static binary (musl's is not linked).
///
/// # Safety
/// As C's `memcpy`.
#[cfg(target_env = "musl")]
#[expect(unsafe_code, reason = "replaces the C library's memcpy symbol")]
#[unsafe(no_mangle)]
unsafe extern "C" fn memcpy(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    // SAFETY: C's contract for memcpy is `copy_forward`'s.
    unsafe { copy_forward(d, s, n) };
    d
}

/// The C library's `memmove` for the whole static binary (musl's is not linked).
///
/// # Safety
/// As C's `memmove`.
#[cfg(target_env = "musl")]
#[expect(unsafe_code, reason = "replaces the C library's memmove symbol")]
#[unsafe(no_mangle)]
unsafe extern "C" fn memmove(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    // SAFETY: C's contract for memmove is `copy`'s.
    unsafe { copy(d, s, n) };
    d
}

#[cfg(test)]
#[expect(unsafe_code, reason = "testing raw memory copies")]
mod tests {
    //! The oracle is computed from a pattern (`byte(i)`), never by copying: in the musl test
    //! binary `copy_nonoverlapping` and `copy` are these very functions. Natively (glibc) they are
    //! glibc's, and the tests compare with them too.
    use super::*;

    /// The byte at index `i` of the untouched buffer.
    fn byte(i: usize) -> u8 {
        (i.wrapping_mul(131) ^ (i >> 8)) as u8
    }

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(byte).collect()
    }

    /// What a buffer of `pattern(len)` holds after moving `n` bytes from `src` to `dst` within it.
    fn moved(len: usize, dst: usize, src: usize, n: usize) -> Vec<u8> {
        (0..len)
            .map(|i| {
                if (dst..dst + n).contains(&i) {
                    byte(src + i - dst)
                } else {
                    byte(i)
                }
            })
            .collect()
    }

    #[test]
    fn copy_forward_every_small_size_and_alignment() {
        for n in 0..=SMALL * 2 + 40 {
            for sa in 0..16 {
                for da in 0..16 {
                    let src = pattern(n + 16);
                    let mut dst = vec![0xA5u8; n + 32];
                    let mut std_dst = dst.clone();
                    unsafe {
                        copy_forward(dst.as_mut_ptr().add(da), src.as_ptr().add(sa), n);
                        std::ptr::copy_nonoverlapping(src.as_ptr().add(sa), std_dst.as_mut_ptr().add(da), n);
                    }
                    assert_eq!(dst, std_dst, "n {n} src +{sa} dst +{da}");
                    let want: Vec<u8> = (0..n + 32)
                        .map(|i| {
                            if (da..da + n).contains(&i) {
                                byte(sa + i - da)
                            } else {
                                0xA5
                            }
                        })
                        .collect();
                    assert_eq!(dst, want, "n {n} src +{sa} dst +{da}");
                }
            }
        }
    }

    #[test]
    fn copy_handles_every_overlap() {
        for n in 0..=SMALL * 2 + 40 {
            let reach = n + 20;
            // Every distance up to 40 either way and around `n` (where the regions stop
            // overlapping), every 7th in between.
            let near = |d: usize| d <= 40 || d + 2 >= n || d.is_multiple_of(7);
            for base in [0, 5] {
                let src_at = base + reach;
                let dsts = (src_at - reach..=src_at + reach).filter(|&d| near(d.abs_diff(src_at)));
                for dst_at in dsts {
                    let len = 2 * reach + n + 8 + base;
                    let mut buf = pattern(len);
                    let mut std_buf = buf.clone();
                    unsafe {
                        copy(buf.as_mut_ptr().add(dst_at), buf.as_ptr().add(src_at), n);
                        std::ptr::copy(std_buf.as_ptr().add(src_at), std_buf.as_mut_ptr().add(dst_at), n);
                    }
                    let want = moved(len, dst_at, src_at, n);
                    assert_eq!(buf, want, "n {n} src {src_at} dst {dst_at}");
                    assert_eq!(std_buf, want, "std: n {n} src {src_at} dst {dst_at}");
                }
            }
        }
    }

    #[test]
    fn large_copies_both_ways() {
        for n in [4095, 4096, 65_537] {
            for shift in [1usize, 15, 16, 17, 64, 4096] {
                let len = n + shift + 32;
                let mut up = pattern(len);
                let mut down = pattern(len);
                unsafe {
                    copy(up.as_mut_ptr().add(shift + 3), up.as_ptr().add(3), n);
                    copy(down.as_mut_ptr().add(3), down.as_ptr().add(shift + 3), n);
                }
                assert_eq!(up, moved(len, shift + 3, 3, n), "n {n} up {shift}");
                assert_eq!(down, moved(len, 3, shift + 3, n), "n {n} down {shift}");
            }
        }
    }
}
