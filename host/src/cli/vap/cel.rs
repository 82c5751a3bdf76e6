//! The CEL of the generated policies (`podmut vap generate`): each setting that CEL can express,
//! as the validations of one ValidatingAdmissionPolicy. Every expression is built from the same
//! few pieces (a field that may be unset, a container's value or else its Pod's), so that a
//! reader can check it against the rule it mirrors (`crates/validation/src/strict.rs` for the
//! strict profile).

use serde_json::{Value, json};

/// One validation: its expression and message (the API server's `reason` is `Forbidden`).
pub(super) fn validation(expression: impl Into<String>, message: &str) -> Value {
    let expression: String = expression.into();
    json!({"expression": expression, "message": message, "reason": "Forbidden"})
}

/// `holder.f` is set (`holder` itself may be unset: it is tested first).
fn set(holder: &str, f: &str) -> String {
    format!("has({holder}) && has({holder}.{f})")
}

/// A capability name as container runtimes read it: trimmed, upper case, without `CAP_`.
fn norm(x: &str) -> String {
    format!(
        "({x}.trim().upperAscii().startsWith('CAP_') ? {x}.trim().upperAscii().substring(4) : {x}.trim().upperAscii())"
    )
}

/// The capabilities container `c` adds (`add`) or drops (`drop`): a list, empty when unset.
fn caps(c: &str, list: &str) -> String {
    let caps = format!("{c}.securityContext.capabilities");
    format!("(has({c}.securityContext) && has({caps}) && has({caps}.{list}) ? {caps}.{list} : [])")
}

/// An identity field of a security context (the container's or the Pod's): whether it is set,
/// and its value as a comparable string.
#[derive(Clone, Copy)]
struct Identity {
    message: &'static str,
    /// Whether `sc.<field>` is set (`sc` is set).
    present: fn(&str) -> String,
    /// `sc.<field>` as a string, when set.
    key: fn(&str) -> String,
}

fn plain_present(field: &'static str) -> impl Fn(&str) -> String {
    move |sc| format!("has({sc}.{field})")
}

fn run_as_user_present(sc: &str) -> String {
    plain_present("runAsUser")(sc)
}
fn run_as_user_key(sc: &str) -> String {
    format!("string({sc}.runAsUser)")
}
fn run_as_group_present(sc: &str) -> String {
    plain_present("runAsGroup")(sc)
}
fn run_as_group_key(sc: &str) -> String {
    format!("string({sc}.runAsGroup)")
}
fn seccomp_present(sc: &str) -> String {
    plain_present("seccompProfile")(sc)
}
fn seccomp_key(sc: &str) -> String {
    profile_key(&format!("{sc}.seccompProfile"))
}
fn app_armor_present(sc: &str) -> String {
    plain_present("appArmorProfile")(sc)
}
fn app_armor_key(sc: &str) -> String {
    profile_key(&format!("{sc}.appArmorProfile"))
}

/// `type/localhostProfile` of a seccomp or AppArmor profile.
fn profile_key(p: &str) -> String {
    format!("{p}.type + '/' + (has({p}.localhostProfile) ? {p}.localhostProfile : '')")
}

/// `user:role:type:level`, each part empty when unset.
fn se_linux_key(sc: &str) -> String {
    let o = format!("{sc}.seLinuxOptions");
    ["user", "role", "type", "level"]
        .iter()
        .map(|p| format!("(has({o}.{p}) ? {o}.{p} : '')"))
        .collect::<Vec<_>>()
        .join(" + ':' + ")
}

/// Options with every part empty are unset.
fn se_linux_present(sc: &str) -> String {
    format!("has({sc}.seLinuxOptions) && ({}) != ':::'", se_linux_key(sc))
}

const IDENTITIES: [Identity; 5] = [
    Identity {
        message: "containers added to a running pod may only use the seLinuxOptions values an existing container or the pod's securityContext uses",
        present: se_linux_present,
        key: se_linux_key,
    },
    Identity {
        message: "containers added to a running pod may only use the runAsUser values an existing container or the pod's securityContext uses",
        present: run_as_user_present,
        key: run_as_user_key,
    },
    Identity {
        message: "containers added to a running pod may only use the runAsGroup values an existing container or the pod's securityContext uses",
        present: run_as_group_present,
        key: run_as_group_key,
    },
    Identity {
        message: "containers added to a running pod may only use the seccompProfile values an existing container or the pod's securityContext uses",
        present: seccomp_present,
        key: seccomp_key,
    },
    Identity {
        message: "containers added to a running pod may only use the appArmorProfile values an existing container or the pod's securityContext uses",
        present: app_armor_present,
        key: app_armor_key,
    },
];

impl Identity {
    /// The container `c`'s own value is set.
    fn own(&self, c: &str) -> String {
        let sc = format!("{c}.securityContext");
        format!("(has({sc}) && {})", (self.present)(&sc))
    }

    /// The Pod `spec`'s value is set.
    fn pod(&self, spec: &str) -> String {
        let sc = format!("{spec}.securityContext");
        format!("(has({sc}) && {})", (self.present)(&sc))
    }

    /// `c` runs with a value (its own, else the Pod's).
    fn effective_set(&self, c: &str, spec: &str) -> String {
        format!("({} || {})", self.own(c), self.pod(spec))
    }

    /// The value `c` runs with, when [`Self::effective_set`].
    fn effective(&self, c: &str, spec: &str) -> String {
        format!(
            "({} ? {} : {})",
            self.own(c),
            (self.key)(&format!("{c}.securityContext")),
            (self.key)(&format!("{spec}.securityContext"))
        )
    }

    /// The added container `a` uses a value an existing container or the running Pod uses
    /// ("unset" only when an existing container runs with it unset).
    fn rule(&self) -> Value {
        let (new, old) = ("object.spec", "oldObject.spec");
        let expression = format!(
            "variables.added.all(a, !{a_set} ? variables.existing.exists(e, !{e_set}) : \
             (variables.existing.exists(e, {e_set} && {e_val} == {a_val}) || \
             ({pod_set} && {pod_val} == {a_val})))",
            a_set = self.effective_set("a", new),
            a_val = self.effective("a", new),
            e_set = self.effective_set("e", old),
            e_val = self.effective("e", old),
            pod_set = self.pod(old),
            pod_val = (self.key)(&format!("{old}.securityContext")),
        );
        validation(expression, self.message)
    }
}

/// The strict profile's variables: the running Pod's containers (main containers and sidecars)
/// and the containers the request adds.
pub(crate) fn strict_variables() -> Value {
    json!([
        {"name": "existing", "expression": "oldObject.spec.containers + (has(oldObject.spec.initContainers) ? oldObject.spec.initContainers.filter(c, has(c.restartPolicy) && c.restartPolicy == 'Always') : [])"},
        {"name": "added", "expression": "object.spec.containers.filter(c, !oldObject.spec.containers.exists(o, o.name == c.name))"},
    ])
}

/// The strict profile's validations, in the order of its rules.
pub(crate) fn strict_validations() -> Vec<Value> {
    let mut out = vec![capabilities_add(), capabilities_drop()];
    out.extend(IDENTITIES.iter().map(Identity::rule));
    out.extend(required_true());
    out.push(proc_mount());
    out
}

fn capabilities_add() -> Value {
    let expression = format!(
        "variables.added.all(a, {added}.all(n, variables.existing.exists(e, {granted}.exists(m, {m} == 'ALL' || {m} == {n}))))",
        added = caps("a", "add"),
        granted = caps("e", "add"),
        m = norm("m"),
        n = norm("n"),
    );
    validation(
        expression,
        "containers added to a running pod may only add capabilities an existing container adds",
    )
}

fn capabilities_drop() -> Value {
    let expression = format!(
        "variables.added.all(a, {a_drops}.exists(d, {d} == 'ALL') || variables.existing.all(e, {e_drops}.all(n, \
         !variables.existing.all(x, {x_drops}.exists(m, {m} == {n} || {m} == 'ALL')) || {a_drops}.exists(m, {m} == {n}))))",
        a_drops = caps("a", "drop"),
        e_drops = caps("e", "drop"),
        x_drops = caps("x", "drop"),
        d = norm("d"),
        m = norm("m"),
        n = norm("n"),
    );
    validation(
        expression,
        "containers added to a running pod must drop every capability all existing containers drop",
    )
}

/// runAsNonRoot (the container's, else the Pod's), readOnlyRootFilesystem and
/// allowPrivilegeEscalation: required of an added container when every existing one has it.
fn required_true() -> Vec<Value> {
    let non_root = |c: &str, spec: &str| {
        format!(
            "(({own}) ? {c}.securityContext.runAsNonRoot : ({pod} && {spec}.securityContext.runAsNonRoot))",
            own = set(&format!("{c}.securityContext"), "runAsNonRoot"),
            pod = set(&format!("{spec}.securityContext"), "runAsNonRoot"),
        )
    };
    let read_only = |c: &str| {
        format!(
            "({} && {c}.securityContext.readOnlyRootFilesystem)",
            set(&format!("{c}.securityContext"), "readOnlyRootFilesystem")
        )
    };
    let no_escalation = |c: &str| {
        format!(
            "({} && !{c}.securityContext.allowPrivilegeEscalation)",
            set(&format!("{c}.securityContext"), "allowPrivilegeEscalation")
        )
    };
    vec![
        validation(
            format!(
                "!variables.existing.all(e, {}) || variables.added.all(a, {})",
                non_root("e", "oldObject.spec"),
                non_root("a", "object.spec")
            ),
            "containers added to a running pod must set runAsNonRoot: true (in its securityContext or the pod's): every existing container runs with it",
        ),
        validation(
            format!(
                "!variables.existing.all(e, {}) || variables.added.all(a, {})",
                read_only("e"),
                read_only("a")
            ),
            "containers added to a running pod must set readOnlyRootFilesystem: true: every existing container sets it",
        ),
        validation(
            format!(
                "!variables.existing.all(e, {}) || variables.added.all(a, {})",
                no_escalation("e"),
                no_escalation("a")
            ),
            "containers added to a running pod must set allowPrivilegeEscalation: false (unset means true): every existing container sets it to false",
        ),
    ]
}

fn proc_mount() -> Value {
    let unmasked = |c: &str| {
        format!(
            "({} && {c}.securityContext.procMount == 'Unmasked')",
            set(&format!("{c}.securityContext"), "procMount")
        )
    };
    validation(
        format!(
            "variables.added.all(a, !{} || variables.existing.exists(e, {}))",
            unmasked("a"),
            unmasked("e")
        ),
        "containers added to a running pod may use procMount: Unmasked only when an existing container does",
    )
}

/// `allowPrivileged: false`: no container of the new Pod (main, init or ephemeral) is privileged
/// or a Windows hostProcess container.
pub(crate) fn privileged_validations() -> Vec<Value> {
    let lists = ["containers", "initContainers", "ephemeralContainers"];
    let none = |test: &dyn Fn(&str) -> String| {
        lists
            .iter()
            .map(|l| {
                format!(
                    "(!has(object.spec.{l}) || object.spec.{l}.all(c, !({})))",
                    test("c")
                )
            })
            .collect::<Vec<_>>()
            .join(" && ")
    };
    let privileged = |c: &str| {
        format!(
            "{} && {c}.securityContext.privileged",
            set(&format!("{c}.securityContext"), "privileged")
        )
    };
    let host_process = |c: &str| {
        let w = format!("{c}.securityContext.windowsOptions");
        format!(
            "{} && has({w}.hostProcess) && {w}.hostProcess",
            set(&format!("{c}.securityContext"), "windowsOptions")
        )
    };
    let pod_host_process = "has(object.spec.securityContext) && has(object.spec.securityContext.windowsOptions) && has(object.spec.securityContext.windowsOptions.hostProcess) && object.spec.securityContext.windowsOptions.hostProcess";
    vec![
        validation(
            none(&privileged),
            "privileged containers are disallowed by cluster policy",
        ),
        validation(
            format!("!({pod_host_process}) && {}", none(&host_process)),
            "hostProcess containers are disallowed by cluster policy",
        ),
    ]
}

/// `memoryLimitDecrease: forbid` (Kubernetes 1.33's resize rule): no container's or sidecar's
/// memory limit goes down or is added (a decrease from "unlimited"), unless its memory resize
/// policy restarts it.
pub(crate) fn memory_limit_validations() -> Vec<Value> {
    let has_limit = |c: &str| {
        format!("has({c}.resources) && has({c}.resources.limits) && 'memory' in {c}.resources.limits")
    };
    let restarts = |c: &str| {
        format!(
            "has({c}.resizePolicy) && {c}.resizePolicy.exists(p, p.resourceName == 'memory' && p.restartPolicy == 'RestartContainer')"
        )
    };
    let list = |l: &str| {
        format!(
            "(!has(object.spec.{l}) || object.spec.{l}.all(c, !has(oldObject.spec.{l}) || \
             oldObject.spec.{l}.filter(o, o.name == c.name).all(o, ({restart}) || !({c_has}) || \
             (({o_has}) && !quantity(c.resources.limits.memory).isLessThan(quantity(o.resources.limits.memory))))))",
            restart = restarts("c"),
            c_has = has_limit("c"),
            o_has = has_limit("o"),
        )
    };
    vec![validation(
        format!("{} && {}", list("containers"), list("initContainers")),
        "memory limits cannot be decreased unless resizePolicy is RestartContainer",
    )]
}
