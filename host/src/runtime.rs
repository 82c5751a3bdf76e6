//! Running the podmut component with wasmtime: one [`Engine`], one linked [`PolicyPre`], and a fresh
//! [`Store`] + instance for every call, bounded by an epoch deadline and a memory cap. The guest gets
//! no filesystem, network, environment or arguments; its stderr is captured only to explain a trap.
//!
//! The component also exports `wasi:http/incoming-handler` (for `wasmtime serve`), whose signature
//! uses the resources of `wasi:http/types`, so the component imports that interface. The linker
//! therefore provides wasmtime-wasi-http's `wasi:http` too — the same bytes load here, in the
//! wasmtime CLI and in the browser — with [`DenyOutgoing`] hooks that refuse every outgoing
//! request (the component imports no `wasi:http/outgoing-handler`; the refusal is defence in depth).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use wasmtime::component::{Component, InstancePre, Linker, ResourceTable};
use wasmtime::{Engine, ResourceLimiter, Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks, WasiHttpView};

use crate::bindings::exports::podmut::policy::{
    admission, documents, inputs, node, policies, report, validate, workloads,
};
use crate::bindings::podmut::policy::types;
use crate::engine::Allocation;
use crate::error::{CallError, HostError};
use crate::trap::NamesFile;

/// The component's bytes, as a static array: a reference to it anywhere (`EMBEDDED_COMPONENT`,
/// the playground's `pkg/podmut.wasm` and `pkg/podmut.core.wasm`) is the address of this one
/// symbol. (A `static X: &[u8] = include_bytes!(..)` points to an anonymous allocation instead,
/// which every static that reads `X` at compile time — the playground's file table — got its own
/// copy of: the component was twice in the binary.)
static COMPONENT_BYTES: [u8; include_bytes!(concat!(env!("OUT_DIR"), "/podmut.wasm")).len()] =
    *include_bytes!(concat!(env!("OUT_DIR"), "/podmut.wasm"));

/// The component built from this workspace and embedded in the binary (once: see
/// `COMPONENT_BYTES`).
pub static EMBEDDED_COMPONENT: &[u8] = &COMPONENT_BYTES;

/// `len` bytes of [`EMBEDDED_COMPONENT`] from `start`: the playground serves the core modules jco
/// writes as files (`pkg/podmut.core.wasm`) from the component's own bytes (host/build.rs). Unused
/// when the binary was built without `web/pkg` (build.rs then sets `podmut_no_web_pkg`).
#[cfg_attr(
    podmut_no_web_pkg,
    expect(dead_code, reason = "no web/pkg embedded: nothing serves the core modules")
)]
pub(crate) const fn embedded_component_range(start: usize, len: usize) -> &'static [u8] {
    EMBEDDED_COMPONENT.split_at(start).1.split_at(len).0
}

/// The function names split off the embedded component's core module (`podmut component --names`
/// writes them; [`crate::trap`] names guest functions in trap backtraces from them).
pub static EMBEDDED_NAMES: &str = include_str!(concat!(env!("OUT_DIR"), "/podmut.wasm.names"));

/// How often the epoch advances; deadlines are counted in these ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Bytes of guest stderr kept to explain a trap.
const STDERR_CAPTURE: usize = 16 * 1024;

/// Where the component comes from.
#[derive(Clone, Debug)]
pub enum ComponentSource {
    /// The component embedded at build time ([`EMBEDDED_COMPONENT`]).
    Embedded,
    /// A `.wasm` component file (`--policy FILE.wasm`); `FILE.wasm.names` beside it, when
    /// present, names its functions in trap backtraces.
    File(PathBuf),
    /// Component bytes already in memory.
    Bytes(Arc<Vec<u8>>),
}

/// Where compiled components are cached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CacheMode {
    /// `$PODMUT_CACHE_DIR`, else `$XDG_CACHE_HOME/podmut`, else `$HOME/.cache/podmut`; off if none.
    #[default]
    Default,
    /// This directory.
    Dir(PathBuf),
    /// Always compile in memory.
    Off,
}

/// Runtime limits and tuning.
#[derive(Clone, Debug)]
pub struct RuntimeOptions {
    /// Use wasmtime's pooling allocator (fast instantiation; reserves address space up front).
    pub pooling: bool,
    /// With pooling: how many instances may be live at once.
    pub max_instances: u32,
    /// Largest linear memory a guest may grow to, in bytes.
    pub memory_limit: usize,
    /// Wall-clock budget of one call.
    pub deadline: Duration,
    /// Compiled-artifact cache.
    pub cache: CacheMode,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        Self {
            pooling: true,
            max_instances: 64,
            memory_limit: 256 << 20,
            deadline: Duration::from_secs(2),
            cache: CacheMode::Default,
        }
    }
}

/// Per-store host state: an empty WASI context, a `wasi:http` context that sends nothing, and the
/// memory limiter.
pub struct HostState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    hooks: DenyOutgoing,
    table: ResourceTable,
    limiter: Limiter,
}

impl std::fmt::Debug for HostState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostState")
            .field("limiter", &self.limiter)
            .finish_non_exhaustive()
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for HostState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.hooks,
        }
    }
}

/// `wasi:http` hooks that refuse every outgoing request with `HTTP-request-denied`: the guest has
/// no network, whatever it imports.
#[derive(Clone, Copy, Debug, Default)]
pub struct DenyOutgoing;

/// What [`WasiHttpHooks::send_request`] returns.
type SendRequestFuture = Box<
    dyn std::future::Future<
            Output = wasmtime_wasi_http::Result<(
                http::Response<wasmtime_wasi_http::WasiBody>,
                Box<dyn std::future::Future<Output = wasmtime_wasi_http::Result<()>> + Send>,
            )>,
        > + Send,
>;

impl WasiHttpHooks for DenyOutgoing {
    fn send_request(
        &mut self,
        _request: http::Request<wasmtime_wasi_http::WasiBody>,
        _options: Option<wasmtime_wasi_http::RequestOptions>,
        _fut: Box<dyn std::future::Future<Output = wasmtime_wasi_http::Result<()>> + Send>,
    ) -> SendRequestFuture {
        Box::new(std::future::ready(Err(
            wasmtime_wasi_http::Error::HttpRequestDenied,
        )))
    }
}

/// Link everything the component imports into `linker`: WASI 0.2 (wasmtime-wasi) plus `wasi:http`
/// (wasmtime-wasi-http). Tests and embedders that instantiate the component through other
/// bindings (`wasi:cli/command`, `wasi:http/proxy`) use this too.
pub fn add_to_linker(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p2::add_to_linker_sync(linker)?;
    wasmtime_wasi_http::p2::add_only_http_to_linker_sync(linker)
}

impl HostState {
    /// A state with the given WASI context (stdio pipes, environment) and no memory cap beyond
    /// `memory_limit`: for instantiating the component's `wasi:cli/run` or
    /// `wasi:http/incoming-handler` exports in tests and embedders.
    pub fn new(wasi: WasiCtx, memory_limit: usize) -> Self {
        Self {
            wasi,
            http: WasiHttpCtx::new(),
            hooks: DenyOutgoing,
            table: ResourceTable::new(),
            limiter: Limiter {
                memory_limit,
                hit: false,
            },
        }
    }
}

/// Caps linear memory and records whether the cap was hit (to tell out-of-memory from other traps).
#[derive(Debug)]
struct Limiter {
    memory_limit: usize,
    hit: bool,
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_limit {
            self.hit = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1_000_000)
    }
}

struct Inner {
    engine: Engine,
    /// The linked component. Not the bindings' `PolicyPre`: that needs every export of the world,
    /// and a component built before `documents` was added must still load ([`Runtime::read_and_check`]).
    pre: InstancePre<HostState>,
    exports: ExportIndices,
    /// `documents`, when the component exports it.
    documents: Option<documents::GuestIndices>,
    /// `workloads`, when the component exports it.
    workloads: Option<workloads::GuestIndices>,
    options: RuntimeOptions,
    digest: String,
    size: usize,
    names: NamesFile,
    ticker_alive: Arc<AtomicBool>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.ticker_alive.store(false, Ordering::Relaxed);
    }
}

/// One exported interface of the `policy` world, as the bindings generate it.
trait Export: Sized {
    /// Look up and type-check its functions in a new instance.
    fn load(
        indices: &ExportIndices,
        store: &mut Store<HostState>,
        instance: &wasmtime::component::Instance,
    ) -> wasmtime::Result<Self>;
}

/// Declares [`ExportIndices`] (where each interface's functions are in the component, found
/// once at load) and the [`Export`] implementation of each interface.
macro_rules! exports {
    ($($iface:ident),* $(,)?) => {
        /// Each exported interface's function indices, found once per loaded component.
        struct ExportIndices {
            $($iface: $iface::GuestIndices,)*
        }

        impl ExportIndices {
            fn new(pre: &wasmtime::component::InstancePre<HostState>) -> wasmtime::Result<Self> {
                Ok(Self {
                    $($iface: $iface::GuestIndices::new(pre)?,)*
                })
            }
        }

        $(impl Export for $iface::Guest {
            fn load(
                indices: &ExportIndices,
                store: &mut Store<HostState>,
                instance: &wasmtime::component::Instance,
            ) -> wasmtime::Result<Self> {
                indices.$iface.load(store, instance)
            }
        })*
    };
}

exports! {
    validate,
    node,
    admission,
    inputs,
    report,
    policies,
}

/// A loaded, linked podmut component. Cheap to clone; every call gets a fresh instance.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("digest", &self.inner.digest)
            .field("options", &self.inner.options)
            .finish()
    }
}

impl Runtime {
    /// Load, compile (or fetch from the cache) and link a component. Its function names for trap
    /// backtraces: [`EMBEDDED_NAMES`] for the embedded one, `FILE.wasm.names` for a file.
    pub fn load(source: &ComponentSource, options: RuntimeOptions) -> Result<Self, HostError> {
        let names = match source {
            ComponentSource::Embedded => NamesFile::new(EMBEDDED_NAMES),
            ComponentSource::File(path) => {
                let mut beside = path.as_os_str().to_owned();
                beside.push(".names");
                NamesFile::new(std::fs::read_to_string(beside).unwrap_or_default())
            }
            ComponentSource::Bytes(_) => NamesFile::default(),
        };
        Self::load_named(source, names, options)
    }

    /// [`Runtime::load`] with the component's names file (`podmut.wasm.names`, as text): used for
    /// trap backtraces when it names this component.
    pub fn load_with_names(
        source: &ComponentSource,
        names: String,
        options: RuntimeOptions,
    ) -> Result<Self, HostError> {
        Self::load_named(source, NamesFile::new(names), options)
    }

    fn load_named(
        source: &ComponentSource,
        names: NamesFile,
        options: RuntimeOptions,
    ) -> Result<Self, HostError> {
        let bytes: std::borrow::Cow<'_, [u8]> = match source {
            ComponentSource::Embedded => EMBEDDED_COMPONENT.into(),
            ComponentSource::File(path) => std::fs::read(path)
                .map_err(|source| HostError::Read {
                    path: path.clone(),
                    source,
                })?
                .into(),
            ComponentSource::Bytes(b) => b.as_slice().into(),
        };
        let engine = build_engine(&options)?;
        // The embedded component's digest was computed at build time.
        let digest = match source {
            ComponentSource::Embedded => crate::version::COMPONENT_SHA256.to_owned(),
            ComponentSource::File(_) | ComponentSource::Bytes(_) => crate::version::sha256_hex(&bytes),
        };
        let embedded = match source {
            ComponentSource::Embedded => crate::precompiled::load_embedded(&engine),
            ComponentSource::File(_) | ComponentSource::Bytes(_) => None,
        };
        let component = match embedded {
            Some(c) => c,
            None => compile_cached(&engine, &bytes, &digest, &options.cache)?,
        };
        let mut linker: Linker<HostState> = Linker::new(&engine);
        add_to_linker(&mut linker).map_err(HostError::Link)?;
        let pre = linker.instantiate_pre(&component).map_err(HostError::Link)?;
        let exports = ExportIndices::new(&pre).map_err(HostError::Link)?;
        let documents = documents::GuestIndices::new(&pre).ok();
        let workloads = workloads::GuestIndices::new(&pre).ok();
        let ticker_alive = Arc::new(AtomicBool::new(true));
        spawn_epoch_ticker(engine.clone(), ticker_alive.clone());
        Ok(Self {
            inner: Arc::new(Inner {
                engine,
                pre,
                exports,
                documents,
                workloads,
                options,
                digest,
                size: bytes.len(),
                names,
                ticker_alive,
            }),
        })
    }

    /// The wasmtime engine.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// SHA-256 of the component bytes, hex.
    pub fn digest(&self) -> &str {
        &self.inner.digest
    }

    /// Size of the component in bytes.
    pub fn component_size(&self) -> usize {
        self.inner.size
    }

    /// The options this runtime was built with.
    pub fn options(&self) -> &RuntimeOptions {
        &self.inner.options
    }

    /// A new store (empty WASI context, stderr captured, memory cap, epoch deadline armed).
    fn new_store(&self) -> (Store<HostState>, MemoryOutputPipe) {
        let opts = &self.inner.options;
        let stderr = MemoryOutputPipe::new(STDERR_CAPTURE);
        let wasi = WasiCtx::builder()
            .stderr(stderr.clone())
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .build();
        let state = HostState::new(wasi, opts.memory_limit);
        let mut store = Store::new(&self.inner.engine, state);
        store.limiter(|s| &mut s.limiter);
        store.set_epoch_deadline(deadline_ticks(opts.deadline));
        (store, stderr)
    }

    /// Run `f` against one exported interface of a fresh instance, mapping traps, timeouts and
    /// memory exhaustion. Only that interface's functions are looked up and type-checked: doing
    /// it for all six on every call (`PolicyPre::instantiate`) cost ~15 % of an instantiation.
    fn call<E: Export, R>(
        &self,
        f: impl FnOnce(&E, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        self.call_loaded(|store, instance| E::load(&self.inner.exports, store, instance), f)
    }

    /// [`Runtime::call`] with the interface loaded by `load`.
    fn call_loaded<E, R>(
        &self,
        load: impl FnOnce(&mut Store<HostState>, &wasmtime::component::Instance) -> wasmtime::Result<E>,
        f: impl FnOnce(&E, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        let inner = &*self.inner;
        let (mut store, stderr) = self.new_store();
        let export = inner
            .pre
            .instantiate(&mut store)
            .and_then(|instance| load(&mut store, &instance))
            .map_err(|e| classify(&e, &store, &stderr, inner))?;
        f(&export, &mut store).map_err(|e| classify(&e, &store, &stderr, inner))
    }

    /// One instance kept for several calls ([`Instance`]): no per-call instantiation, but state
    /// (linear memory, a trap) carries over between calls. The webhook and the CLI use a fresh
    /// instance per call; this is for benchmarks and trusted batch use.
    pub fn instance(&self) -> Result<Instance, HostError> {
        let inner = &*self.inner;
        let (mut store, stderr) = self.new_store();
        let loaded = inner.pre.instantiate(&mut store).and_then(|instance| {
            Ok(InstanceExports {
                validate: validate::Guest::load(&inner.exports, &mut store, &instance)?,
                admission: admission::Guest::load(&inner.exports, &mut store, &instance)?,
            })
        });
        let exports = loaded.map_err(|e| classify(&e, &store, &stderr, inner))?;
        Ok(Instance {
            runtime: self.clone(),
            store,
            exports,
            stderr,
        })
    }

    /// `validate.check`.
    pub fn check(
        &self,
        old: Option<&str>,
        new: &str,
        sub: types::Subresource,
        settings: &str,
    ) -> Result<types::Verdict, CallError> {
        let r = self.call(|p: &validate::Guest, s| p.call_check(s, old, new, sub, settings))?;
        r.map_err(CallError::Input)
    }

    /// `node.qos-class`.
    pub fn qos(&self, pod: &str, options: node::QosOptions) -> Result<types::QosClass, CallError> {
        let r = self.call(|p: &node::Guest, s| p.call_qos(s, pod, options))?;
        r.map_err(CallError::Input)
    }

    /// `node.allocate`.
    pub fn allocate(&self, request: &str) -> Result<node::AllocationDecision, CallError> {
        let r = self.call(|p: &node::Guest, s| p.call_allocate(s, request))?;
        r.map_err(CallError::Input)
    }

    /// `node.retry-order`.
    pub fn retry_order(&self, pending: &str) -> Result<node::RetryPlan, CallError> {
        let r = self.call(|p: &node::Guest, s| p.call_retry_order(s, pending))?;
        r.map_err(CallError::Input)
    }

    /// `node.probe-plan`.
    pub fn probe_plan(
        &self,
        old: &str,
        new: &str,
        settings: &str,
    ) -> Result<node::ProbeReconciliation, CallError> {
        let r = self.call(|p: &node::Guest, s| p.call_probe_plan(s, old, new, settings))?;
        r.map_err(CallError::Input)
    }

    /// `node.container-statuses`.
    pub fn container_statuses(&self, request: &str) -> Result<String, CallError> {
        let r = self.call(|p: &node::Guest, s| p.call_container_statuses(s, request))?;
        r.map_err(CallError::Input)
    }

    /// `admission.review`.
    pub fn review(&self, review: &str, settings: &str) -> Result<String, CallError> {
        let r = self.call(|p: &admission::Guest, s| p.call_review(s, review, settings))?;
        r.map_err(CallError::Input)
    }

    /// `inputs.read-documents`.
    pub fn read_documents(
        &self,
        text: &str,
        input: &str,
        kind: inputs::DocumentKind,
        validation: inputs::FieldValidation,
    ) -> Result<Vec<inputs::Document>, CallError> {
        let r = self.call(|p: &inputs::Guest, s| p.call_read_documents(s, text, input, kind, validation))?;
        r.map_err(CallError::Input)
    }

    /// `documents.read-and-check`: `podmut check`'s two inputs read and judged in one call; `None`
    /// when the component does not export it (one built before it was added: the caller then
    /// calls [`Runtime::read_documents`] and [`Runtime::check`]).
    pub fn read_and_check(
        &self,
        old: Option<&str>,
        new: &str,
        validation: inputs::FieldValidation,
        sub: types::Subresource,
        settings: &str,
    ) -> Option<Result<documents::CheckedDocuments, CallError>> {
        let indices = self.inner.documents.as_ref()?;
        let r = self.call_loaded(
            |store, instance| indices.load(store, instance),
            |p: &documents::Guest, s| p.call_read_and_check(s, old, new, validation, sub, settings),
        );
        Some(
            r.map_err(CallError::Host)
                .and_then(|r| r.map_err(CallError::Input)),
        )
    }

    /// `workloads.rollout`: what a workload update does to its running Pods (`Ok(None)` when the
    /// documents are not workloads); `None` when the component does not export it (one built
    /// before it was added).
    pub fn rollout(
        &self,
        old: &str,
        new: &str,
        settings: &str,
    ) -> Option<Result<Option<workloads::RolloutReport>, CallError>> {
        let indices = self.inner.workloads.as_ref()?;
        let r = self.call_loaded(
            |store, instance| indices.load(store, instance),
            |p: &workloads::Guest, s| p.call_rollout(s, old, new, settings),
        );
        Some(
            r.map_err(CallError::Host)
                .and_then(|r| r.map_err(CallError::Input)),
        )
    }

    /// `inputs.apply-patch`.
    pub fn apply_patch(
        &self,
        old: &str,
        patch: &str,
        patch_type: inputs::PatchType,
    ) -> Result<String, CallError> {
        let r = self.call(|p: &inputs::Guest, s| p.call_apply_patch(s, old, patch, patch_type))?;
        r.map_err(CallError::Input)
    }

    /// `inputs.admission-request`.
    pub fn admission_request(
        &self,
        old: Option<&str>,
        new: Option<&str>,
        options: &inputs::RequestOptions,
    ) -> Result<String, CallError> {
        let r = self.call(|p: &inputs::Guest, s| p.call_admission_request(s, old, new, options))?;
        r.map_err(CallError::Input)
    }

    /// `report.plan`.
    pub fn plan(&self, input: &PlanRequest<'_>) -> Result<report::ChangePlan, CallError> {
        let r = self.call(|p: &report::Guest, s| {
            p.call_plan(
                s,
                input.old,
                input.new,
                input.sub,
                input.node,
                input.pods,
                input.settings,
            )
        })?;
        r.map_err(CallError::Input)
    }

    /// `report.rules`: the rule-origin table.
    pub fn rules(&self) -> Result<report::RuleTable, CallError> {
        Ok(self.call(|p: &report::Guest, s| p.call_rules(s))?)
    }

    /// `admission.coverage` without a scope (is there *some* Pod whose `pods/dynamic` requests
    /// would be rejected?).
    pub fn coverage(&self, configs: &str) -> Result<admission::CoverageReport, CallError> {
        self.coverage_scoped(configs, None)
    }

    /// `admission.coverage` for the Pod `scope` describes.
    pub fn coverage_scoped(
        &self,
        configs: &str,
        scope: Option<&admission::CoverageScope>,
    ) -> Result<admission::CoverageReport, CallError> {
        let r = self.call(|p: &admission::Guest, s| p.call_coverage(s, configs, scope))?;
        r.map_err(CallError::Input)
    }

    /// `policies.evaluate`: ValidatingAdmissionPolicies on one Pod request.
    pub fn vap(&self, request: &policies::VapRequest) -> Result<policies::VapReport, CallError> {
        let r = self.call(|p: &policies::Guest, s| p.call_evaluate(s, request))?;
        r.map_err(CallError::Input)
    }

    /// `policies.type-check`: the policies' expressions type-checked against the Pod schema.
    pub fn vap_type_check(&self, policies: &[String]) -> Result<Vec<policies::VapTypeCheck>, CallError> {
        let r = self.call(|p: &policies::Guest, s| p.call_type_check(s, policies))?;
        r.map_err(CallError::Input)
    }
}

/// The documents of a `report.plan` call.
#[derive(Clone, Copy, Debug)]
pub struct PlanRequest<'a> {
    /// The Pod before the change.
    pub old: &'a str,
    /// The Pod after the change.
    pub new: &'a str,
    /// The request path.
    pub sub: types::Subresource,
    /// The v1 Node.
    pub node: Option<&'a str>,
    /// The other Pods on the node.
    pub pods: Option<&'a str>,
    /// The settings document.
    pub settings: &'a str,
}

/// A component instance reused across calls (see [`Runtime::instance`]). Each call re-arms the
/// epoch deadline; after a trap the instance is poisoned and every later call fails.
pub struct Instance {
    runtime: Runtime,
    store: Store<HostState>,
    exports: InstanceExports,
    stderr: MemoryOutputPipe,
}

/// The interfaces an [`Instance`] calls, loaded once.
struct InstanceExports {
    validate: validate::Guest,
    admission: admission::Guest,
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance")
            .field("runtime", &self.runtime)
            .finish_non_exhaustive()
    }
}

impl Instance {
    fn call<R>(
        &mut self,
        f: impl FnOnce(&InstanceExports, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        let inner = &*self.runtime.inner;
        self.store
            .set_epoch_deadline(deadline_ticks(inner.options.deadline));
        f(&self.exports, &mut self.store).map_err(|e| classify(&e, &self.store, &self.stderr, inner))
    }

    /// `validate.check` on this instance.
    pub fn check(
        &mut self,
        old: Option<&str>,
        new: &str,
        sub: types::Subresource,
        settings: &str,
    ) -> Result<types::Verdict, CallError> {
        let r = self.call(|p, s| p.validate.call_check(s, old, new, sub, settings))?;
        r.map_err(CallError::Input)
    }

    /// `admission.review` on this instance.
    pub fn review(&mut self, review: &str, settings: &str) -> Result<String, CallError> {
        let r = self.call(|p, s| p.admission.call_review(s, review, settings))?;
        r.map_err(CallError::Input)
    }
}

/// The epoch deadline, in ticks, for a wall-clock budget.
fn deadline_ticks(deadline: Duration) -> u64 {
    let ticks = deadline.as_millis().div_ceil(EPOCH_TICK.as_millis()).max(1);
    u64::try_from(ticks).unwrap_or(u64::MAX)
}

/// Tell a timeout or memory exhaustion from any other trap (described with the guest's function
/// names, [`crate::trap`]).
fn classify(
    err: &wasmtime::Error,
    store: &Store<HostState>,
    stderr: &MemoryOutputPipe,
    inner: &Inner,
) -> HostError {
    let opts = &inner.options;
    if err.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
        return HostError::Timeout(opts.deadline);
    }
    if store.data().limiter.hit {
        return HostError::OutOfMemory {
            limit: opts.memory_limit,
        };
    }
    let captured = String::from_utf8_lossy(&stderr.contents()).trim().to_owned();
    HostError::Trap {
        message: crate::trap::describe(err, &inner.names, &inner.digest),
        stderr: captured,
    }
}

fn build_engine(options: &RuntimeOptions) -> Result<Engine, HostError> {
    let allocation = if options.pooling {
        Allocation::Pooling {
            instances: options.max_instances,
            memory_limit: options.memory_limit,
        }
    } else {
        Allocation::OnDemand
    };
    Engine::new(&crate::engine::config(allocation)).map_err(HostError::Engine)
}

fn spawn_epoch_ticker(engine: Engine, alive: Arc<AtomicBool>) {
    let spawned = std::thread::Builder::new()
        .name("podmut-epoch".into())
        .spawn(move || {
            while alive.load(Ordering::Relaxed) {
                std::thread::sleep(EPOCH_TICK);
                engine.increment_epoch();
            }
        });
    // Without a ticker, deadlines never fire; calls still complete, so this is not fatal.
    if let Err(e) = spawned {
        eprintln!("podmut: warning: cannot start the epoch ticker ({e}); calls run without a deadline");
    }
}

/// The cache directory for a mode, if any.
pub fn cache_dir(mode: &CacheMode) -> Option<PathBuf> {
    match mode {
        CacheMode::Off => None,
        CacheMode::Dir(d) => Some(d.clone()),
        CacheMode::Default => {
            if let Some(d) = std::env::var_os("PODMUT_CACHE_DIR").filter(|d| !d.is_empty()) {
                return Some(PathBuf::from(d));
            }
            if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
                return Some(PathBuf::from(d).join("podmut"));
            }
            std::env::var_os("HOME")
                .filter(|d| !d.is_empty())
                .map(|h| PathBuf::from(h).join(".cache").join("podmut"))
        }
    }
}

/// The cache file name for a component under an engine configuration.
fn cache_key(engine: &Engine, digest: &str) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    format!("{}-{:016x}.cwasm", &digest[..32.min(digest.len())], h.finish())
}

/// Compile a component, reusing a precompiled artifact from the cache when one matches. The file is
/// mapped where it lies (`Component::deserialize_file`); wasmtime's own cache (`Config::cache`)
/// decompresses and copies it on every hit instead.
/// Saves on a warm `podmut check --policy`: 7.1 vs 47.5 ms CPU with wasmtime's (BENCHMARKS.md, "The CLI").
fn compile_cached(
    engine: &Engine,
    bytes: &[u8],
    digest: &str,
    mode: &CacheMode,
) -> Result<Component, HostError> {
    let Some(dir) = cache_dir(mode) else {
        return Component::new(engine, bytes).map_err(HostError::Compile);
    };
    let path = dir.join(cache_key(engine, digest));
    if path.is_file()
        && let Some(c) = load_precompiled(engine, &path)
    {
        return Ok(c);
    }
    let component = Component::new(engine, bytes).map_err(HostError::Compile)?;
    // A cache that cannot be written only costs the next run a compile.
    if let Ok(serialized) = component.serialize() {
        let _ = write_atomically(&dir, &path, &serialized);
    }
    Ok(component)
}

#[expect(
    unsafe_code,
    reason = "wasmtime requires unsafe to load precompiled machine code"
)]
fn load_precompiled(engine: &Engine, path: &Path) -> Option<Component> {
    // SAFETY: the file was written by `write_atomically` below into podmut's own per-user cache
    // directory (created 0700), under a name derived from the component digest and this engine's
    // compatibility hash; wasmtime additionally checks its header and engine compatibility.
    unsafe { Component::deserialize_file(engine, path) }.ok()
}

fn write_atomically(dir: &Path, path: &Path, data: &[u8]) -> std::io::Result<()> {
    create_private_dir(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("c"),
        std::process::id()
    ));
    std::fs::write(&tmp, data)?;
    std::fs::rename(&tmp, path)
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use super::*;
    use crate::precompiled::{Placement, load_static, precompile};
    use crate::version::COMPONENT_SHA256;

    #[test]
    fn digest_is_of_the_embedded_component() {
        assert_eq!(COMPONENT_SHA256, crate::version::sha256_hex(EMBEDDED_COMPONENT));
    }

    fn engine(pooling: bool) -> Engine {
        build_engine(&RuntimeOptions {
            pooling,
            ..RuntimeOptions::default()
        })
        .unwrap()
    }

    /// The embedded component's artefact, compiled once for every test here.
    fn compiled() -> &'static [u8] {
        static ARTEFACT: OnceLock<Vec<u8>> = OnceLock::new();
        ARTEFACT.get_or_init(|| precompile(EMBEDDED_COMPONENT).unwrap())
    }

    /// `len` bytes at a page boundary (`offset` bytes past it), leaked: a stand-in for the
    /// binary's read-only data, which lives as long as the process.
    fn leaked_at_page_offset(bytes: &[u8], offset: usize) -> &'static [u8] {
        let page = 1 << 16; // a multiple of every page size
        let buffer: &'static mut [u8] = Box::leak(vec![0_u8; bytes.len() + offset + page].into_boxed_slice());
        let start = buffer.as_ptr().align_offset(page) + offset;
        let dest = &mut buffer[start..start + bytes.len()];
        dest.copy_from_slice(bytes);
        dest
    }

    /// The rule table through a fresh instance of `component`: its machine code runs.
    fn rule_count(engine: &Engine, component: &Component) -> usize {
        let mut linker = Linker::new(engine);
        add_to_linker(&mut linker).unwrap();
        let mut store = Store::new(engine, HostState::new(WasiCtx::builder().build(), 256 << 20));
        // The engines interrupt at epoch deadlines; no ticker runs here, so one tick never comes.
        store.set_epoch_deadline(1);
        let policy = crate::bindings::Policy::instantiate(&mut store, component, &linker).unwrap();
        let table = policy.podmut_policy_report().call_rules(&mut store).unwrap();
        table.rules.len()
    }

    #[test]
    fn embedded_artefact_runs_in_place_when_page_aligned_and_copied_otherwise() {
        let artefact = compiled();
        let expected = if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            Placement::InPlace
        } else {
            Placement::Copied
        };
        for pooling in [false, true] {
            let e = engine(pooling);
            let aligned = leaked_at_page_offset(artefact, 0);
            let (component, placement) = load_static(&e, aligned, COMPONENT_SHA256).unwrap();
            assert_eq!(placement, expected, "pooling {pooling}");
            let in_place = rule_count(&e, &component);
            assert!(in_place > 0);
            // Off a page boundary the code cannot be published where it lies: it is copied.
            let misaligned = leaked_at_page_offset(artefact, 8);
            let (copied, placement) = load_static(&e, misaligned, COMPONENT_SHA256).unwrap();
            assert_eq!(placement, Placement::Copied, "pooling {pooling}");
            assert_eq!(rule_count(&e, &copied), in_place);
            // Dropping a component published in place leaves its bytes readable and unchanged.
            drop(component);
            assert_eq!(aligned, artefact);
        }
        // The embedded artefact's checks hold in place too.
        let e = engine(false);
        let aligned = leaked_at_page_offset(artefact, 0);
        assert_eq!(
            load_static(&e, aligned, &"0".repeat(64)).err().as_deref(),
            Some("it was compiled from another component")
        );
    }
}
