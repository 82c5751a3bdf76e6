//! How podmut's engines make machine code executable: `mprotect` to read + execute, the same system
//! call wasmtime makes for code it copied into its own mapping, here also for code it does not own:
//! the artefact embedded in the binary's read-only data, used where it lies
//! (`Component::deserialize_raw`, [`crate::precompiled`]). wasmtime's own publisher is private.
//! Saves an 8 MB copy per start: a small `podmut check` 3.7 vs 10.4 ms CPU (BENCHMARKS.md, "The CLI").
//!
//! x86-64 Linux only: its instruction cache needs no flush after code is written (other
//! architectures would need one), and `mprotect` may make a private file mapping executable. Where
//! the kernel refuses (a hardening policy against executable file mappings), publishing fails and
//! [`crate::precompiled`] copies the code.

use std::sync::Arc;

use wasmtime::{Config, CustomCodeMemory};

/// The `mprotect` publisher.
#[derive(Debug)]
struct Mprotect {
    page: usize,
}

impl Mprotect {
    #[expect(unsafe_code, reason = "mprotect on a region wasmtime hands over page-aligned")]
    fn protect(&self, ptr: *const u8, len: usize, prot: libc::c_int) -> std::io::Result<()> {
        if len == 0 {
            return Ok(());
        }
        // SAFETY: wasmtime passes the text section of a code image it is publishing or
        // unpublishing, aligned to `required_alignment` (the page size); no other code of this
        // process runs from or writes to it meanwhile (CustomCodeMemory's contract).
        let rc = unsafe { libc::mprotect(ptr.cast_mut().cast(), len, prot) };
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

impl CustomCodeMemory for Mprotect {
    fn required_alignment(&self) -> usize {
        self.page
    }

    fn publish_executable(&self, ptr: *const u8, len: usize) -> wasmtime::Result<()> {
        self.protect(ptr, len, libc::PROT_READ | libc::PROT_EXEC)
            .map_err(|e| wasmtime::format_err!("cannot make machine code executable: {e}"))
    }

    fn unpublish_executable(&self, ptr: *const u8, len: usize) -> wasmtime::Result<()> {
        // Only on drop: wasmtime unmaps its own copies right after, and the embedded artefact is
        // read-only data, so read-only is what is left. A failure is ignored: wasmtime panics on
        // an error here, and the region is never executed again either way.
        let _ = self.protect(ptr, len, libc::PROT_READ);
        Ok(())
    }
}

/// The page size, from the kernel.
#[expect(unsafe_code, reason = "sysconf has no safe wrapper in libc")]
pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf reads a constant of the running system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page)
        .ok()
        .filter(|p| p.is_power_of_two())
        .unwrap_or(4096)
}

/// Have `config`'s engine publish machine code with [`Mprotect`].
pub(crate) fn install(config: &mut Config) {
    config.with_custom_code_memory(Some(Arc::new(Mprotect { page: page_size() })));
}
