//! The control plane's key material, made fresh per control plane as envtest makes it: a CA, the
//! API server's serving certificate (127.0.0.1, localhost), an administrator's client certificate
//! (group `system:masters`), and the service-account signing key.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose, SanType,
};

use crate::OracleError;

/// PEM-encoded key material for one control plane.
#[derive(Clone, Debug)]
pub struct Certs {
    /// The CA that signed the serving and client certificates (clients' trust root, the API
    /// server's `--client-ca-file`).
    pub ca_pem: String,
    /// The API server's serving certificate.
    pub serving_cert_pem: String,
    /// Its key.
    pub serving_key_pem: String,
    /// The administrator's client certificate (CN `podmut-admin`, O `system:masters`).
    pub admin_cert_pem: String,
    /// Its key.
    pub admin_key_pem: String,
    /// The service-account token signing key (ECDSA P-256, PKCS#8).
    pub sa_key_pem: String,
    /// Its public half.
    pub sa_pub_pem: String,
    issuer: std::sync::Arc<CertifiedIssuer<'static, KeyPair>>,
}

#[expect(clippy::needless_pass_by_value, reason = "a map_err adapter")]
fn rc(e: rcgen::Error) -> OracleError {
    OracleError::Start(format!("cannot make the control plane's certificates: {e}"))
}

fn validity(p: &mut CertificateParams) {
    let now = time::OffsetDateTime::now_utc();
    p.not_before = now - time::Duration::hours(1);
    p.not_after = now + time::Duration::days(30);
}

impl Certs {
    /// Fresh material.
    pub fn generate() -> Result<Self, OracleError> {
        let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(rc)?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name.push(DnType::CommonName, "podmut oracle CA");
        ca.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        validity(&mut ca);
        let issuer = CertifiedIssuer::self_signed(ca, KeyPair::generate().map_err(rc)?).map_err(rc)?;

        let mut serving =
            CertificateParams::new(vec!["localhost".to_owned(), "kubernetes".to_owned()]).map_err(rc)?;
        serving
            .subject_alt_names
            .push(SanType::IpAddress(std::net::Ipv4Addr::LOCALHOST.into()));
        serving
            .distinguished_name
            .push(DnType::CommonName, "kube-apiserver");
        serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        serving.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        validity(&mut serving);
        let serving_key = KeyPair::generate().map_err(rc)?;
        let serving_cert = serving.signed_by(&serving_key, &issuer).map_err(rc)?;

        let admin = Self::client_params("podmut-admin", &["system:masters"])?;
        let admin_key = KeyPair::generate().map_err(rc)?;
        let admin_cert = admin.signed_by(&admin_key, &issuer).map_err(rc)?;

        let sa = KeyPair::generate().map_err(rc)?;
        Ok(Self {
            ca_pem: issuer.pem(),
            serving_cert_pem: serving_cert.pem(),
            serving_key_pem: serving_key.serialize_pem(),
            admin_cert_pem: admin_cert.pem(),
            admin_key_pem: admin_key.serialize_pem(),
            sa_key_pem: sa.serialize_pem(),
            sa_pub_pem: sa.public_key_pem(),
            issuer: std::sync::Arc::new(issuer),
        })
    }

    fn client_params(user: &str, groups: &[&str]) -> Result<CertificateParams, OracleError> {
        let mut p = CertificateParams::new(Vec::<String>::new()).map_err(rc)?;
        p.distinguished_name.push(DnType::CommonName, user);
        for g in groups {
            p.distinguished_name.push(DnType::OrganizationName, *g);
        }
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        validity(&mut p);
        Ok(p)
    }

    /// A serving certificate and key (PEM) for 127.0.0.1 and `localhost`, signed by this CA: for a
    /// webhook the API server calls with this CA as its `caBundle`.
    pub fn serving_cert(&self) -> Result<(String, String), OracleError> {
        let mut p = CertificateParams::new(vec!["localhost".to_owned()]).map_err(rc)?;
        p.subject_alt_names
            .push(SanType::IpAddress(std::net::Ipv4Addr::LOCALHOST.into()));
        p.distinguished_name.push(DnType::CommonName, "127.0.0.1");
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        validity(&mut p);
        let key = KeyPair::generate().map_err(rc)?;
        let cert = p.signed_by(&key, self.issuer.as_ref()).map_err(rc)?;
        Ok((cert.pem(), key.serialize_pem()))
    }

    /// A client certificate and key (PEM) for `user` in `groups`, signed by this CA: how a test
    /// authenticates as someone other than the administrator.
    pub fn client_cert(&self, user: &str, groups: &[&str]) -> Result<(String, String), OracleError> {
        let key = KeyPair::generate().map_err(rc)?;
        let cert = Self::client_params(user, groups)?
            .signed_by(&key, self.issuer.as_ref())
            .map_err(rc)?;
        Ok((cert.pem(), key.serialize_pem()))
    }
}
