//! Progress you can read: `<run>/logs/metrics.jsonl` (one JSON object per
//! line, for scripts and the dashboard) and TensorBoard event files in
//! `<run>/logs/` with the same figures.
//!
//! Lines are appended and fsynced one by one; a kill can leave at most a
//! torn last line, which readers skip.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Writes metrics to both sinks.
pub struct MetricsLog {
    path: PathBuf,
    file: File,
    tensorboard: tensorboard_rs::summary_writer::SummaryWriter,
}

impl MetricsLog {
    pub fn open(logs: &Path) -> std::io::Result<MetricsLog> {
        fs::create_dir_all(logs)?;
        let path = logs.join("metrics.jsonl");
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(MetricsLog {
            path,
            file,
            tensorboard: tensorboard_rs::summary_writer::SummaryWriter::new(logs),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record: `kind` (train, selfplay, gating, elo),
    /// `generation`, the time, and `fields`; numeric fields also go to
    /// TensorBoard as `kind/field` at `step`.
    pub fn log(&mut self, kind: &str, generation: u64, step: u64, fields: Map<String, Value>) {
        let mut line = Map::new();
        line.insert("kind".into(), kind.into());
        line.insert("generation".into(), generation.into());
        line.insert("step".into(), step.into());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        line.insert("unix_time".into(), now.into());
        for (k, v) in fields {
            if let Some(x) = v.as_f64() {
                self.tensorboard
                    .add_scalar(&format!("{kind}/{k}"), x as f32, step as usize);
            }
            line.insert(k, v);
        }
        let mut text = Value::Object(line).to_string();
        text.push('\n');
        // Metrics must never stop training: a full disk shows in the next
        // checkpoint write, which does stop it.
        let _ = self.file.write_all(text.as_bytes());
        let _ = self.file.sync_data();
        self.tensorboard.flush();
    }
}

/// Turns a serializable value into metric fields.
pub fn fields<T: serde::Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}
