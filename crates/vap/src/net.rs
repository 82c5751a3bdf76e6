//! The Kubernetes CEL IP and CIDR libraries (`k8s.io/apiserver/pkg/cel/library/ip.go`,
//! `cidr.go`): `ip()`, `isIP()`, `ip.isCanonical()`, `cidr()`, `isCIDR()`, their member functions
//! (`cidr.ip()` among them) and `string()` of both. Addresses are
//! parsed strictly like Go's `netip` (the std parser: no leading zeros, no zones), and IPv4-mapped
//! IPv6 addresses are refused as upstream refuses them.

#![expect(
    clippy::needless_pass_by_value,
    reason = "the cel crate's function adapters hand arguments over by value"
)]

use std::net::IpAddr;
use std::sync::Arc;

use cel::common::types::Type;
use cel::common::value::CowVal;
use cel::extractors::This;
use cel::objects::Opaque;
use cel::{Context, Env, ExecutionError, Value};

use super::library::owned;

type Res = Result<Value, ExecutionError>;

/// A `net.IP` CEL value.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Ip(IpAddr);

impl Opaque for Ip {
    fn runtime_type_name(&self) -> &str {
        "net.IP"
    }
}

/// A `net.CIDR` CEL value: the address as written and the prefix length.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Cidr {
    addr: IpAddr,
    bits: u8,
}

impl Opaque for Cidr {
    fn runtime_type_name(&self) -> &str {
        "net.CIDR"
    }
}

/// Add the functions to a context.
pub(crate) fn register(ctx: &mut Context<'_, '_>) {
    // A clash with the environment is a bug every test shows, never an input's fault.
    let _ = ctx.add_function("ip", ip);
    let _ = ctx.add_function("isIP", is_ip);
    let _ = ctx.add_function("family", family);
    let _ = ctx.add_function("isUnspecified", is_unspecified);
    let _ = ctx.add_function("isLoopback", is_loopback);
    let _ = ctx.add_function("isLinkLocalMulticast", is_link_local_multicast);
    let _ = ctx.add_function("isLinkLocalUnicast", is_link_local_unicast);
    let _ = ctx.add_function("isGlobalUnicast", is_global_unicast);
    let _ = ctx.add_function("cidr", cidr);
    let _ = ctx.add_function("isCIDR", is_cidr);
    let _ = ctx.add_function("containsIP", contains_ip);
    let _ = ctx.add_function("containsCIDR", contains_cidr);
    let _ = ctx.add_function("prefixLength", prefix_length);
    let _ = ctx.add_function("masked", masked);
    let _ = ctx.add_function("ip.isCanonical", is_canonical);
}

/// Add `string(ip)` and `string(cidr)` beside the environment's own `string` overloads.
pub(crate) fn register_overloads(env: &mut Env) {
    // Registration fails only when a signature is declared twice, which every test would show.
    let _ = env.add_overload(
        "string",
        "ip_to_string",
        vec![Type::new_opaque_type("net.IP")],
        to_string,
    );
    let _ = env.add_overload(
        "string",
        "cidr_to_string",
        vec![Type::new_opaque_type("net.CIDR")],
        to_string,
    );
}

/// `string(ip)` / `string(cidr)`: Go's `netip.Addr.String()` / `netip.Prefix.String()` — IPv4
/// dotted, IPv6 in RFC 5952's canonical form (what `Ipv6Addr`'s `Display` writes too), the
/// prefix's address as written (not masked).
fn to_string<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [arg] = args.as_slice() else {
        return Err(ExecutionError::invalid_argument_count(1, args.len()));
    };
    let v = Value::try_from(arg.as_ref())?;
    let text = match &v {
        Value::Opaque(o) => match (o.downcast_ref::<Ip>(), o.downcast_ref::<Cidr>()) {
            (Some(ip), _) => ip.0.to_string(),
            (_, Some(c)) => format!("{}/{}", c.addr, c.bits),
            _ => return Err(no_overload("string", &[&v])),
        },
        other => return Err(no_overload("string", &[other])),
    };
    owned(Value::String(Arc::new(text)))
}

/// `ip.isCanonical(s)`: whether `s` is the address as Go would write it back.
fn is_canonical(s: Value) -> Res {
    let text = text("ip.isCanonical", &s)?;
    let addr = parse_ip(text).map_err(|e| ExecutionError::function_error("ip.isCanonical", e))?;
    Ok(Value::Bool(addr.to_string() == text))
}

fn no_overload(function: &str, args: &[&Value]) -> ExecutionError {
    ExecutionError::no_such_member_overload(function, args.iter().map(|a| a.type_of().to_string()).collect())
}

fn parse_ip(s: &str) -> Result<IpAddr, String> {
    let addr: IpAddr = s
        .parse()
        .map_err(|_| format!("IP Address {s:?} parse error during conversion from string"))?;
    if let IpAddr::V6(v6) = addr
        && v6.to_ipv4_mapped().is_some()
    {
        return Err(format!("IPv4-mapped IPv6 address {s:?} is not allowed"));
    }
    Ok(addr)
}

fn parse_cidr(s: &str) -> Result<Cidr, String> {
    let err = || format!("network address {s:?} parse error during conversion from string");
    let (addr, bits) = s.split_once('/').ok_or_else(err)?;
    let addr = parse_ip(addr).map_err(|_| err())?;
    // Go's netip: decimal digits only, no sign, no leading zero.
    if bits.is_empty()
        || !bits.bytes().all(|b| b.is_ascii_digit())
        || (bits.len() > 1 && bits.starts_with('0'))
    {
        return Err(err());
    }
    let bits: u8 = bits.parse().map_err(|_| err())?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    if bits > max {
        return Err(err());
    }
    Ok(Cidr { addr, bits })
}

fn text<'a>(function: &str, v: &'a Value) -> Result<&'a str, ExecutionError> {
    match v {
        Value::String(s) => Ok(s.as_str()),
        other => Err(no_overload(function, &[other])),
    }
}

fn as_ip<'a>(function: &str, v: &'a Value) -> Result<&'a IpAddr, ExecutionError> {
    match v {
        Value::Opaque(o) => o
            .downcast_ref::<Ip>()
            .map(|i| &i.0)
            .ok_or_else(|| no_overload(function, &[v])),
        other => Err(no_overload(function, &[other])),
    }
}

fn as_cidr<'a>(function: &str, v: &'a Value) -> Result<&'a Cidr, ExecutionError> {
    match v {
        Value::Opaque(o) => o
            .downcast_ref::<Cidr>()
            .ok_or_else(|| no_overload(function, &[v])),
        other => Err(no_overload(function, &[other])),
    }
}

/// `ip(string)`, and `cidr.ip()`: the CIDR's address as written.
fn ip(This(this): This<Value>) -> Res {
    if let Value::Opaque(o) = &this
        && let Some(c) = o.downcast_ref::<Cidr>()
    {
        return Ok(Value::Opaque(Arc::new(Ip(c.addr))));
    }
    let addr = parse_ip(text("ip", &this)?).map_err(|e| ExecutionError::function_error("ip", e))?;
    Ok(Value::Opaque(Arc::new(Ip(addr))))
}

fn is_ip(s: Value) -> Res {
    Ok(Value::Bool(parse_ip(text("isIP", &s)?).is_ok()))
}

fn family(This(this): This<Value>) -> Res {
    Ok(Value::Int(if as_ip("family", &this)?.is_ipv4() { 4 } else { 6 }))
}

fn is_unspecified(This(this): This<Value>) -> Res {
    Ok(Value::Bool(as_ip("isUnspecified", &this)?.is_unspecified()))
}

fn is_loopback(This(this): This<Value>) -> Res {
    Ok(Value::Bool(as_ip("isLoopback", &this)?.is_loopback()))
}

/// Go's `IsLinkLocalMulticast`: 224.0.0.0/24, ff02::/16.
fn link_local_multicast(a: &IpAddr) -> bool {
    match a {
        IpAddr::V4(v4) => v4.octets()[..3] == [224, 0, 0],
        IpAddr::V6(v6) => v6.octets()[0] == 0xff && v6.octets()[1] & 0x0f == 0x02,
    }
}

/// Go's `IsLinkLocalUnicast`: 169.254.0.0/16, fe80::/10.
fn link_local_unicast(a: &IpAddr) -> bool {
    match a {
        IpAddr::V4(v4) => v4.is_link_local(),
        IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
    }
}

fn is_link_local_multicast(This(this): This<Value>) -> Res {
    Ok(Value::Bool(link_local_multicast(as_ip(
        "isLinkLocalMulticast",
        &this,
    )?)))
}

fn is_link_local_unicast(This(this): This<Value>) -> Res {
    Ok(Value::Bool(link_local_unicast(as_ip(
        "isLinkLocalUnicast",
        &this,
    )?)))
}

/// Go's `IsGlobalUnicast`: not unspecified, loopback, multicast, link-local or the IPv4
/// broadcast address (private addresses count as global).
fn is_global_unicast(This(this): This<Value>) -> Res {
    let a = as_ip("isGlobalUnicast", &this)?;
    let broadcast = matches!(a, IpAddr::V4(v4) if v4.is_broadcast());
    Ok(Value::Bool(
        !(a.is_unspecified() || a.is_loopback() || a.is_multicast() || link_local_unicast(a) || broadcast),
    ))
}

fn cidr(s: Value) -> Res {
    let c = parse_cidr(text("cidr", &s)?).map_err(|e| ExecutionError::function_error("cidr", e))?;
    Ok(Value::Opaque(Arc::new(c)))
}

fn is_cidr(s: Value) -> Res {
    Ok(Value::Bool(parse_cidr(text("isCIDR", &s)?).is_ok()))
}

/// The address with every bit past the first `bits` cleared.
fn mask(addr: &IpAddr, bits: u8) -> IpAddr {
    match addr {
        IpAddr::V4(v4) => {
            let m = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            IpAddr::V4((u32::from(*v4) & m).into())
        }
        IpAddr::V6(v6) => {
            let m = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            IpAddr::V6((u128::from(*v6) & m).into())
        }
    }
}

fn contains(c: &Cidr, addr: &IpAddr) -> bool {
    c.addr.is_ipv4() == addr.is_ipv4() && mask(addr, c.bits) == mask(&c.addr, c.bits)
}

fn contains_ip(This(this): This<Value>, other: Value) -> Res {
    let c = as_cidr("containsIP", &this)?;
    let addr = match &other {
        Value::String(s) => parse_ip(s).map_err(|e| ExecutionError::function_error("containsIP", e))?,
        v => *as_ip("containsIP", v)?,
    };
    Ok(Value::Bool(contains(c, &addr)))
}

fn contains_cidr(This(this): This<Value>, other: Value) -> Res {
    let c = as_cidr("containsCIDR", &this)?;
    let parsed;
    let o = match &other {
        Value::String(s) => {
            parsed = parse_cidr(s).map_err(|e| ExecutionError::function_error("containsCIDR", e))?;
            &parsed
        }
        v => as_cidr("containsCIDR", v)?,
    };
    Ok(Value::Bool(o.bits >= c.bits && contains(c, &o.addr)))
}

fn prefix_length(This(this): This<Value>) -> Res {
    Ok(Value::Int(i64::from(as_cidr("prefixLength", &this)?.bits)))
}

fn masked(This(this): This<Value>) -> Res {
    let c = as_cidr("masked", &this)?;
    Ok(Value::Opaque(Arc::new(Cidr {
        addr: mask(&c.addr, c.bits),
        bits: c.bits,
    })))
}

#[cfg(test)]
mod tests {
    use super::super::cel::eval;

    /// Upstream `library/ip_test.go` and `cidr_test.go` (the cases this library implements).
    #[test]
    fn ip_and_cidr() {
        for e in [
            "isIP('192.168.0.1')",
            "isIP('2001:db8::68')",
            "!isIP('192.168.0.1.0')",
            "!isIP('192.168.0.01')",
            "!isIP('::ffff:192.168.0.1')",
            "!isIP('fe80::1%eth0')",
            "ip('192.168.0.1').family() == 4",
            "ip('2001:db8::68').family() == 6",
            "ip('127.0.0.1') == ip('127.0.0.1')",
            "ip('127.0.0.1') != ip('127.0.0.2')",
            "ip('0.0.0.0').isUnspecified()",
            "ip('::').isUnspecified()",
            "!ip('127.0.0.1').isUnspecified()",
            "ip('127.0.0.1').isLoopback()",
            "ip('::1').isLoopback()",
            "!ip('192.168.0.1').isLoopback()",
            "ip('224.0.0.1').isLinkLocalMulticast()",
            "ip('ff02::1').isLinkLocalMulticast()",
            "!ip('224.0.1.1').isLinkLocalMulticast()",
            "ip('169.254.169.254').isLinkLocalUnicast()",
            "ip('fe80::1').isLinkLocalUnicast()",
            "!ip('192.168.0.1').isLinkLocalUnicast()",
            "ip('192.168.0.1').isGlobalUnicast()",
            "ip('2001:db8::68').isGlobalUnicast()",
            "!ip('255.255.255.255').isGlobalUnicast()",
            "!ip('ff00::1').isGlobalUnicast()",
            "isCIDR('192.168.0.0/24')",
            "isCIDR('2001:db8::/32')",
            "!isCIDR('192.168.0.0/33')",
            "!isCIDR('192.168.0.0')",
            "!isCIDR('192.168.0.0/024')",
            "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))",
            "cidr('192.168.0.0/24').containsIP('192.168.0.1')",
            "!cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))",
            "!cidr('192.168.0.0/24').containsIP('2001:db8::1')",
            "cidr('2001:db8::/32').containsIP('2001:db8::1')",
            "cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))",
            "cidr('192.168.0.0/24').containsCIDR('192.168.0.128/25')",
            "!cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23')",
            "cidr('192.168.0.0/24').prefixLength() == 24",
            "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
            "cidr('2001:db8::1/32').masked() == cidr('2001:db8::/32')",
        ] {
            assert_eq!(eval(e), Ok(cel::Value::Bool(true)), "{e}");
        }
        let e = eval("ip('192.168.0.1.0')").unwrap_err();
        assert!(e.contains("parse error during conversion from string"), "{e}");
        let e = eval("cidr('192.168.0.0/33')").unwrap_err();
        assert!(e.contains("parse error during conversion from string"), "{e}");
    }

    /// `string(ip)`, `string(cidr)`, `ip.isCanonical`, `cidr.ip()`: upstream `ip_test.go`,
    /// `cidr_test.go` and apiextensions `validation_test.go` "IP and CIDR".
    #[test]
    fn strings_canonical_forms_and_the_cidr_address() {
        for e in [
            "string(ip('192.168.0.1')) == '192.168.0.1'",
            "string(ip('2001:db8::68')) == '2001:db8::68'",
            "string(ip('2001:DB8:0:0:0:0:0:68')) == '2001:db8::68'",
            "string(cidr('192.168.0.0/24')) == '192.168.0.0/24'",
            "string(cidr('192.168.0.1/24')) == '192.168.0.1/24'",
            "string(cidr('2001:db8::/32')) == '2001:db8::/32'",
            "string('x') == 'x' && string(1) == '1'",
            "ip.isCanonical('127.0.0.1')",
            "ip.isCanonical('2001:db8::68')",
            "!ip.isCanonical('2001:DB8::68')",
            "!ip.isCanonical('2001:db8:0:0:0:0:0:68')",
            "cidr('192.168.0.0/24').ip() == ip('192.168.0.0')",
            "cidr('192.168.0.1/24').ip() == ip('192.168.0.1')",
            "cidr('::1/128').ip().family() == 6",
            "cidr('192.168.0.1/24').masked().ip() == ip('192.168.0.0')",
        ] {
            assert_eq!(eval(e), Ok(cel::Value::Bool(true)), "{e}");
        }
        for e in ["ip.isCanonical('127.0.0.1.0')", "ip.isCanonical('2001:db8:::68')"] {
            let err = eval(e).unwrap_err();
            assert!(
                err.contains("parse error during conversion from string"),
                "{e}: {err}"
            );
        }
    }
}
