//! Control planes shared by every case of a test run: one per [`Config`], started on first use,
//! stopped by [`Pool::shutdown`] (and, should the process die first, by the parent-death signal
//! [`crate::process`] sets).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::OnceCell;

use crate::api::Api;
use crate::control_plane::{Config, ControlPlane};

/// A started control plane and a client of it.
#[derive(Debug)]
pub struct Server {
    /// The control plane.
    pub plane: ControlPlane,
    /// The administrator's client.
    pub api: Api,
}

type Slot = Arc<OnceCell<Result<Arc<Server>, String>>>;

/// The control planes of a run.
#[derive(Debug, Default)]
pub struct Pool {
    slots: Mutex<BTreeMap<Config, Slot>>,
}

impl Pool {
    /// The control plane for `config`, started if it is not yet (a start that failed is reported
    /// to every caller, not retried).
    pub async fn get(&self, config: &Config) -> Result<Arc<Server>, String> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            slots.entry(config.clone()).or_default().clone()
        };
        slot.get_or_init(|| async {
            let plane = ControlPlane::start(config).await.map_err(|e| e.to_string())?;
            let api = plane.client().await.map_err(|e| e.to_string())?;
            Ok(Arc::new(Server { plane, api }))
        })
        .await
        .clone()
    }

    /// Stop every control plane (each API server, then its etcd).
    pub fn shutdown(&self) {
        let slots = std::mem::take(&mut *self.slots.lock().unwrap_or_else(PoisonError::into_inner));
        drop(slots);
    }
}
