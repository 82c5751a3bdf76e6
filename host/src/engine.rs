//! The wasmtime engine configuration every podmut engine is built from: the runtime's engines and
//! the one `podmut precompile` compiles the embedded machine code with ([`crate::precompiled`]).

use wasmtime::{Config, Enabled, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How an engine allocates instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Allocation {
    /// Memory for each instance when it is made (one-shot CLI calls, precompiling).
    OnDemand,
    /// wasmtime's pooling allocator (fast instantiation; reserves address space up front).
    Pooling {
        /// How many instances may be live at once.
        instances: u32,
        /// Largest linear memory a guest may grow to, in bytes.
        memory_limit: usize,
    },
}

/// How much of a pooled linear memory is restored in place between instances instead of being
/// returned to the kernel (`madvise`, then a page fault per page the next instance touches).
/// With Linux's `PAGEMAP_SCAN` (6.7+) only the pages the last instance wrote are restored, so this
/// bounds what a slot keeps resident (slots: the webhook's workers + 2) and costs nothing per call:
/// a 5-container review writes well under 1 MiB (stack, written data pages, heap). Without it the
/// lowest bytes are cleared with `memset` on every reset whether written or not, so the bound
/// stays at 1 MiB (the guest's stack comes first in its memory).
fn memory_keep_resident(pagemap_scan: bool) -> usize {
    if pagemap_scan { 4 << 20 } else { 1 << 20 }
}

/// The one wasmtime configuration every podmut engine uses. Machine code compiled under it
/// (the cache, [`crate::precompiled`]) loads into any engine built from it, pooled or not.
pub(crate) fn config(allocation: Allocation) -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.epoch_interruption(true);
    // No `.eh_frame` for the guest's machine code. Only a native unwinder walking through guest
    // frames would read it (wasmtime's own trap backtraces walk frame pointers; a host panic is
    // caught before it reaches guest frames), and the static binary's LLVM libunwind registers it
    // one function at a time and deregisters it with a linear scan per function: half of a whole
    // `podmut check` was that scan when the component was dropped (measured: half of a
    // small `podmut check`). The setting is part of the engine's compatibility hash, so the cache key
    // changes with it; wasmtime loads artefacts compiled either way.
    config.native_unwind_info(false);
    // Publishes machine code wherever it lies, so the embedded artefact runs without a copy.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    crate::code_memory::install(&mut config);
    if let Allocation::Pooling {
        instances,
        memory_limit,
    } = allocation
    {
        let n = instances.max(1);
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(n)
            .total_core_instances(n.saturating_mul(4))
            .total_memories(n.saturating_mul(2))
            .total_tables(n.saturating_mul(4))
            .max_memories_per_component(2)
            .max_tables_per_component(4)
            .max_core_instances_per_component(8)
            .max_memory_size(memory_limit)
            .linear_memory_keep_resident(memory_keep_resident(
                PoolingAllocationConfig::is_pagemap_scan_available(),
            ))
            .table_keep_resident(64 << 10)
            // Reset a slot by restoring only the pages the last instance wrote (found with
            // `PAGEMAP_SCAN` where the kernel has it): they stay mapped, so the next instance
            // neither faults them in again nor pays for clearing untouched memory (BENCHMARKS.md,
            // "Per-call cost").
            .pagemap_scan(Enabled::Auto);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}
