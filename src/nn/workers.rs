//! The networks of a self-play run's workers: one each, or one shared
//! through a [`BatchServer`].

use burn::tensor::Device;

use super::{InferenceOptions, Model, NetEvaluator};
use crate::evaluator::{
    BatchServer, Evaluation, Evaluator, Inference, ServerClient, ServerOptions, ServerStats,
};
use crate::game::Game;

/// What one worker evaluates with.
pub enum WorkerNet<G: Game> {
    /// Its own single-threaded network.
    Own(Box<NetEvaluator<G>>),
    /// A client of the run's shared network.
    Client(ServerClient<G::State>),
}

impl<G: Game> Evaluator<G::State> for WorkerNet<G> {
    fn evaluate(&mut self, positions: &[G::State]) -> Vec<Evaluation> {
        match self {
            WorkerNet::Own(n) => n.evaluate(positions),
            WorkerNet::Client(c) => c.evaluate(positions),
        }
    }
}

/// Makes the workers' evaluators for one set of weights, as
/// [`Inference`] says: with [`Inference::Server`] one network on every core
/// of the pool (or on the GPU) answers every worker, and lives as long as
/// this value.
///
/// ```
/// use std::time::Duration;
/// use yinsh_zero::evaluator::{Evaluator, Inference, ServerOptions};
/// use yinsh_zero::game::Game;
/// use yinsh_zero::nn::{default_device, ModelConfig, WorkerNets};
/// use yinsh_zero::games::yinsh::{Position, Yinsh};
///
/// let game = Yinsh::standard();
/// let device = default_device();
/// let model = ModelConfig::new().with_blocks(1).with_channels(8).init(&game.net_shape(), &device);
/// let nets = WorkerNets::new(&game, &model, &device, Inference::Server, ServerOptions::default())
///     .unwrap();
/// let make = nets.maker();
/// let mut worker = make(0).unwrap();
/// assert_eq!(worker.evaluate(&[Position::new()])[0].priors.len(), 85);
/// assert_eq!(nets.server_stats().unwrap().positions, 1);
/// ```
pub struct WorkerNets<'a, G: Game> {
    game: &'a G,
    model: &'a Model,
    device: &'a Device,
    server: Option<BatchServer<G::State>>,
}

impl<'a, G: Game> WorkerNets<'a, G> {
    /// For [`Inference::Server`], starts the server; its network takes
    /// `server.max_batch` positions in one pass and runs on the global
    /// rayon pool, so on the CPU it uses every core.
    pub fn new(
        game: &'a G,
        model: &'a Model,
        device: &'a Device,
        inference: Inference,
        server: ServerOptions,
    ) -> Result<WorkerNets<'a, G>, String> {
        let server = match inference {
            Inference::PerWorker => None,
            Inference::Server => {
                let (g, m, d) = (game.clone(), model.clone(), device.clone());
                let options = InferenceOptions {
                    cache_capacity: 1 << 16,
                    threads: None,
                    max_batch: server.max_batch,
                    native_cpu: true,
                    side_by_side: true,
                };
                Some(BatchServer::start(
                    move || NetEvaluator::new(g, m, d, options).map_err(|e| e.to_string()),
                    server,
                )?)
            }
        };
        Ok(WorkerNets {
            game,
            model,
            device,
            server,
        })
    }

    /// The maker that [`crate::selfplay::run`] calls on each worker's
    /// thread.
    pub fn maker(&self) -> impl Fn(usize) -> Result<WorkerNet<G>, String> + Sync + '_ {
        move |_| match &self.server {
            Some(s) => Ok(WorkerNet::Client(s.client())),
            None => NetEvaluator::new(
                self.game.clone(),
                self.model.clone(),
                self.device.clone(),
                InferenceOptions::default(),
            )
            .map(|n| WorkerNet::Own(Box::new(n)))
            .map_err(|e| e.to_string()),
        }
    }

    /// The shared network's calls so far; `None` without a server.
    pub fn server_stats(&self) -> Option<ServerStats> {
        self.server.as_ref().map(BatchServer::stats)
    }
}
