//! Which hardware runs the network.
//!
//! burn 0.22 erases the backend behind [`Device`]: tensors and modules carry
//! no backend type, so nothing outside this module (least of all the search)
//! depends on the choice. The pure-Rust `flex` CPU backend is always built;
//! CUDA and wgpu come with the cargo features `cuda` and `wgpu`.
//!
//! # Threads
//!
//! `flex` parallelises with rayon (its own loops, and `gemm` with
//! `rayon::current_num_threads()` workers). Work started inside
//! [`rayon::ThreadPool::install`] sees that pool, so running a forward pass
//! inside a one-thread pool makes it single-threaded without touching the
//! process-wide pool. [`NetEvaluator`](super::NetEvaluator) does exactly this
//! when given `threads: Some(n)`: each self-play worker owns an evaluator
//! with its own one-thread pool, and workers never fight over cores.
//! `threads: None` shares rayon's global pool (all cores, or
//! `RAYON_NUM_THREADS`).

use std::fmt;
use std::str::FromStr;

use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use super::NnError;

/// A backend this crate knows how to start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// Pure-Rust CPU backend (SIMD + rayon). Always available.
    #[default]
    Flex,
    /// NVIDIA GPUs; needs the `cuda` cargo feature.
    Cuda,
    /// Any GPU through wgpu (Vulkan, Metal, DX12); needs the `wgpu` feature.
    Wgpu,
}

impl BackendKind {
    pub const ALL: [BackendKind; 3] = [BackendKind::Flex, BackendKind::Cuda, BackendKind::Wgpu];

    pub const fn name(self) -> &'static str {
        match self {
            BackendKind::Flex => "flex",
            BackendKind::Cuda => "cuda",
            BackendKind::Wgpu => "wgpu",
        }
    }

    /// The hardware it runs on, for messages.
    pub const fn hardware(self) -> &'static str {
        match self {
            BackendKind::Flex => "CPU",
            BackendKind::Cuda => "NVIDIA GPU",
            BackendKind::Wgpu => "GPU through wgpu",
        }
    }

    /// Whether this build includes the backend.
    pub const fn is_compiled(self) -> bool {
        match self {
            BackendKind::Flex => true,
            BackendKind::Cuda => cfg!(feature = "cuda"),
            BackendKind::Wgpu => cfg!(feature = "wgpu"),
        }
    }

    /// The default device of this backend.
    pub fn device(self) -> Result<Device, NnError> {
        match self {
            BackendKind::Flex => Ok(Device::flex()),
            #[cfg(feature = "cuda")]
            BackendKind::Cuda => Ok(Device::cuda(burn::tensor::DeviceIndex::Default)),
            #[cfg(feature = "wgpu")]
            BackendKind::Wgpu => Ok(Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)),
            #[allow(unreachable_patterns)]
            other => Err(NnError::BackendNotBuilt {
                backend: other.name(),
            }),
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BackendKind {
    type Err = NnError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BackendKind::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| NnError::UnknownBackend { name: s.to_owned() })
    }
}

/// The device used when nothing is asked for: `flex` on the CPU.
pub fn default_device() -> Device {
    Device::flex()
}
