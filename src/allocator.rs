//! The global allocator of the `ctxfuzz` binary, the benchmarks and the cargo-fuzz targets:
//! mimalloc, asked through its plain entry points (`mi_malloc`, `mi_zalloc`, `mi_realloc`)
//! wherever they give the alignment a layout needs, and through its aligned ones only where they
//! do not.
//!
//! Why not the `mimalloc` crate's `MiMalloc`: it asks `mi_malloc_aligned` for every layout, even
//! an alignment of 1. mimalloc 3's aligned path is fast only for a block under 1 KiB whose free
//! list happens to hold an aligned block; otherwise it over-allocates (a 48-byte request takes a
//! 64-byte block) or goes the long way round, 160 instructions a call. 30,000 `sweep` cases took
//! 3.9% fewer instructions with this allocator (docs/figures.md). The defect is known upstream
//! (purpleprotocol/mimalloc_rust pull request 170, open); when a release takes it, this module
//! gives way to the crate again.
//!
//! The rule is the one std's `System` allocator applies to `malloc` (`align <= MIN_ALIGN && align
//! <= size`, `MIN_ALIGN` 16 on x86-64 and AArch64): mimalloc places every block of 16 bytes or
//! more at a multiple of 16 (`MI_MAX_ALIGN_SIZE`, asserted in its `alloc.c` as each block is
//! taken) and every smaller one at a multiple of 8, its smallest block, and a layout's alignment
//! is never larger than its size on the plain path.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// The alignment mimalloc gives every block of at least this size (`MI_MAX_ALIGN_SIZE`).
const PLAIN_ALIGN: usize = 16;

/// mimalloc with the plain entry points where they suffice (see the module's docs).
pub struct Mimalloc;

/// Whether a block of `size` bytes from mimalloc's plain entry points is aligned to `align`.
fn plain_suffices(align: usize, size: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

/// A plain entry point of mimalloc's: `size`.
type Plain = unsafe extern "C" fn(usize) -> *mut c_void;
/// An aligned entry point of mimalloc's: `size`, `alignment`.
type Aligned = unsafe extern "C" fn(usize, usize) -> *mut c_void;

/// A block for `layout` from `plain` where it suffices, else from `aligned`.
///
/// # Safety
/// As `GlobalAlloc::alloc`: `layout` has a non-zero size.
#[inline]
unsafe fn allocate(layout: Layout, plain: Plain, aligned: Aligned) -> *mut u8 {
    let (size, align) = (layout.size(), layout.align());
    let block = if plain_suffices(align, size) {
        unsafe { plain(size) }
    } else {
        unsafe { aligned(size, align) }
    };
    block.cast()
}

// SAFETY: every pointer returned comes from mimalloc, aligned as the layout asks (the plain entry
// points only where `plain_suffices`), and `mi_free` and `mi_realloc*` take a block from either
// kind of entry point.
unsafe impl GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { allocate(layout, mi_malloc, mi_malloc_aligned) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { allocate(layout, mi_zalloc, mi_zalloc_aligned) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        unsafe { mi_free(ptr.cast::<c_void>()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        let block = if plain_suffices(align, new_size) {
            unsafe { mi_realloc(ptr.cast::<c_void>(), new_size) }
        } else {
            unsafe { mi_realloc_aligned(ptr.cast::<c_void>(), new_size, align) }
        };
        block.cast()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every alignment from 1 to 4 KiB, at sizes around each block boundary mimalloc has up to
    /// 64 KiB, many at once so that blocks come from the middle of pages and not only their
    /// starts: each block aligned, zeroed when asked, and its bytes kept through a growth.
    #[test]
    fn every_layout_comes_back_aligned_and_keeps_its_bytes_through_a_growth() {
        // A size of 0 is no layout `GlobalAlloc` is asked for.
        let sizes = (1..=64).chain([
            72, 80, 96, 112, 120, 127, 128, 129, 200, 1000, 1024, 1025, 4096, 65536,
        ]);
        let layouts: Vec<Layout> = sizes
            .flat_map(|size| {
                (0..=12).map(move |shift| Layout::from_size_align(size, 1 << shift).unwrap())
            })
            .collect();
        for zeroed in [false, true] {
            let mut blocks = Vec::new();
            for _ in 0..8 {
                for &layout in &layouts {
                    let ptr = unsafe {
                        if zeroed {
                            Mimalloc.alloc_zeroed(layout)
                        } else {
                            Mimalloc.alloc(layout)
                        }
                    };
                    assert!(!ptr.is_null(), "{layout:?}");
                    assert_eq!(ptr as usize % layout.align(), 0, "{layout:?}");
                    let bytes = unsafe { std::slice::from_raw_parts_mut(ptr, layout.size()) };
                    if zeroed {
                        assert!(bytes.iter().all(|&b| b == 0), "{layout:?} not zeroed");
                    }
                    bytes.fill(0xA5);
                    blocks.push((ptr, layout));
                }
            }
            for (ptr, layout) in blocks {
                let new_size = layout.size() * 3 + 1;
                let grown = unsafe { Mimalloc.realloc(ptr, layout, new_size) };
                assert!(!grown.is_null(), "{layout:?}");
                assert_eq!(grown as usize % layout.align(), 0, "{layout:?} grown");
                let kept = unsafe { std::slice::from_raw_parts(grown, layout.size()) };
                assert!(kept.iter().all(|&b| b == 0xA5), "{layout:?} lost its bytes");
                let grown_layout = Layout::from_size_align(new_size, layout.align()).unwrap();
                unsafe { Mimalloc.dealloc(grown, grown_layout) };
            }
        }
    }

    /// The rule itself: sending a layout the plain path serves to the aligned one instead would
    /// pass the test above and bring back the cost this module exists to avoid.
    #[test]
    fn the_plain_entry_points_serve_what_std_s_system_allocator_gives_malloc() {
        let plain = [(1, 1), (1, 4096), (8, 8), (16, 16), (16, 52)];
        let aligned = [(8, 7), (16, 15), (32, 64), (4096, 4096)];
        for (align, size) in plain {
            assert!(plain_suffices(align, size), "align {align}, size {size}");
        }
        for (align, size) in aligned {
            assert!(!plain_suffices(align, size), "align {align}, size {size}");
        }
    }
}
