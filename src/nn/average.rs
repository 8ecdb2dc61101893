//! Weight averaging: the mean of several networks of one shape.
//!
//! The generations of a run at a constant learning rate scatter around
//! what they learn, and each plays a little differently from the last;
//! their mean sits nearer the middle (stochastic weight averaging, which
//! KataGo uses for the networks it plays). Every float tensor is averaged
//! alike: weights, biases and the batch-norm running statistics.

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::tensor::{Tensor, TensorData};

use super::Model;

/// Why networks cannot be averaged.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum AverageError {
    #[error("no networks to average")]
    Empty,
    #[error(
        "network {index} is shaped differently from the first: only networks of one size and game average"
    )]
    Shape { index: usize },
}

/// Every float tensor of a module, flattened, in the order burn visits them.
#[derive(Default)]
struct Collect(Vec<Vec<f32>>);

impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let data = param.val().into_data().convert::<f32>();
        self.0
            .push(data.try_to_vec::<f32>().expect("a float tensor"));
    }
}

/// Replaces every float tensor, in visiting order, with the next of `values`.
struct Replace(std::vec::IntoIter<Vec<f32>>);

impl ModuleMapper for Replace {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let values = self.0.next().expect("as many tensors as visited");
        param.map(|t| {
            let shape = t.shape();
            let device = t.device();
            let grad = t.is_require_grad();
            Tensor::from_data(TensorData::new(values, shape), &device).set_require_grad(grad)
        })
    }
}

fn floats(model: &Model) -> Vec<Vec<f32>> {
    let mut c = Collect::default();
    model.visit(&mut c);
    c.0
}

/// The mean of `models`, each weighing the same. They must share one shape
/// (one [`ModelConfig`](super::ModelConfig) and game); the result lives
/// where the first does.
///
/// ```
/// use yinsh_zero::game::Game;
/// use yinsh_zero::nn::{ModelConfig, average, default_device};
/// let shape = yinsh_zero::games::yinsh::Yinsh::standard().net_shape();
/// let device = default_device();
/// let config = ModelConfig::new().with_blocks(1).with_channels(8);
/// let generations = [config.init(&shape, &device), config.init(&shape, &device)];
/// let mean = average(&generations).unwrap();
/// assert!(average(&[]).is_err());
/// ```
pub fn average(models: &[Model]) -> Result<Model, AverageError> {
    let first = models.first().ok_or(AverageError::Empty)?;
    let mut sum = floats(first);
    for (index, m) in models.iter().enumerate().skip(1) {
        let other = floats(m);
        let sizes = |v: &[Vec<f32>]| v.iter().map(Vec::len).collect::<Vec<_>>();
        if sizes(&other) != sizes(&sum) {
            return Err(AverageError::Shape { index });
        }
        for (s, o) in sum.iter_mut().zip(other) {
            for (x, y) in s.iter_mut().zip(o) {
                *x += y;
            }
        }
    }
    let k = models.len() as f32;
    for s in &mut sum {
        for x in s.iter_mut() {
            *x /= k;
        }
    }
    Ok(first.clone().map(&mut Replace(sum.into_iter())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::nn::{ModelConfig, default_device};

    fn net(blocks: usize) -> Model {
        let shape = crate::games::grid::Grid::new(5).net_shape();
        ModelConfig::new()
            .with_blocks(blocks)
            .with_channels(8)
            .init(&shape, &default_device())
    }

    fn values<const D: usize>(t: &Param<Tensor<D>>) -> Vec<f32> {
        t.val().into_data().convert::<f32>().try_to_vec().unwrap()
    }

    #[test]
    fn every_float_tensor_is_the_mean() {
        let (a, b, c) = (net(1), net(1), net(1));
        let mean = average(&[a.clone(), b.clone(), c.clone()]).unwrap();
        let mean_of = |f: &dyn Fn(&Model) -> Vec<f32>| {
            let (x, y, z) = (f(&a), f(&b), f(&c));
            (0..x.len())
                .map(|i| (x[i] + y[i] + z[i]) / 3.0)
                .collect::<Vec<f32>>()
        };
        let close = |x: Vec<f32>, y: Vec<f32>| {
            assert_eq!(x.len(), y.len());
            assert!(x.iter().zip(&y).all(|(p, q)| (p - q).abs() < 1e-6));
        };
        close(
            values(&mean.stem.conv.weight),
            mean_of(&|m| values(&m.stem.conv.weight)),
        );
        close(
            values(&mean.wdl.weight),
            mean_of(&|m| values(&m.wdl.weight)),
        );
        assert_ne!(values(&mean.wdl.weight), values(&a.wdl.weight));
        // The batch-norm statistics too: move one network's away from the
        // fresh 0 and 1 and the mean follows a third of the way.
        let moved = a.clone().map(&mut Replace(
            floats(&a)
                .into_iter()
                .map(|v| v.into_iter().map(|x| x + 3.0).collect())
                .collect::<Vec<_>>()
                .into_iter(),
        ));
        let mean = average(&[moved, b.clone(), c.clone()]).unwrap();
        let running = |m: &Model| {
            m.stem
                .bn
                .running_mean
                .value()
                .into_data()
                .convert::<f32>()
                .try_to_vec::<f32>()
                .unwrap()
        };
        assert!(
            running(&mean).iter().all(|x| (x - 1.0).abs() < 1e-6),
            "{:?}",
            running(&mean)
        );
    }

    #[test]
    fn a_network_averaged_with_itself_is_itself_and_shapes_must_agree() {
        let a = net(1);
        let same = average(&[a.clone(), a.clone()]).unwrap();
        assert_eq!(floats(&same), floats(&a));
        assert_eq!(
            average(&[a, net(1), net(2)]).unwrap_err(),
            AverageError::Shape { index: 2 }
        );
        assert_eq!(average(&[]).unwrap_err(), AverageError::Empty);
    }
}
