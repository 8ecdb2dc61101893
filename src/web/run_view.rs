//! Reading a run directory for the dashboard: every numeric field of
//! `logs/metrics.jsonl` as a series per kind, and a summary per
//! `eval/*.jsonl` file.
//!
//! The training loop writes these files while the dashboard reads them, so
//! a torn last line, a line of another shape, or a missing file are normal:
//! they are counted and skipped, never an error.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

/// One point of a series.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SeriesPoint {
    /// `unix_time` of the line, if it had one.
    pub t: Option<f64>,
    /// `generation` of the line, if it had one.
    pub g: Option<f64>,
    pub v: f64,
}

/// A summary of one `eval/*.jsonl` file (one line per game).
#[derive(Clone, Debug, Serialize, Default, PartialEq)]
pub struct EvalFile {
    pub name: String,
    /// Lines that parsed as JSON objects.
    pub games: usize,
    /// For each text field, how often each value occurs (e.g. results).
    pub counts: BTreeMap<String, BTreeMap<String, usize>>,
    /// The mean of each numeric field.
    pub means: BTreeMap<String, f64>,
    pub skipped_lines: usize,
}

/// What the dashboard shows of a run.
#[derive(Clone, Debug, Serialize, Default, PartialEq)]
pub struct RunView {
    pub dir: String,
    /// kind -> field -> points, in file order.
    pub metrics: BTreeMap<String, BTreeMap<String, Vec<SeriesPoint>>>,
    /// Metric lines read.
    pub lines: usize,
    /// Metric lines that were not JSON objects.
    pub skipped_lines: usize,
    pub eval: Vec<EvalFile>,
}

/// Reads `dir/logs/metrics.jsonl` and `dir/eval/*.jsonl`.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir(dir.path().join("logs")).unwrap();
/// std::fs::write(
///     dir.path().join("logs/metrics.jsonl"),
///     "{\"kind\":\"train\",\"generation\":1,\"unix_time\":10,\"policy_loss\":2.5}\nnot json\n",
/// )
/// .unwrap();
/// let run = yinsh_zero::web::read_run(dir.path());
/// assert_eq!(run.metrics["train"]["policy_loss"][0].v, 2.5);
/// assert_eq!(run.skipped_lines, 1);
/// ```
pub fn read_run(dir: &Path) -> RunView {
    let mut view = RunView {
        dir: dir.display().to_string(),
        ..RunView::default()
    };
    if let Ok(text) = fs::read_to_string(dir.join("logs").join("metrics.jsonl")) {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(line) else {
                view.skipped_lines += 1;
                continue;
            };
            view.lines += 1;
            let kind = obj
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("other")
                .to_string();
            let t = obj.get("unix_time").and_then(Value::as_f64);
            let g = obj.get("generation").and_then(Value::as_f64);
            let series = view.metrics.entry(kind).or_default();
            for (field, value) in &obj {
                if field == "unix_time" || field == "generation" {
                    continue;
                }
                if let Some(v) = value.as_f64().filter(|v| v.is_finite()) {
                    series
                        .entry(field.clone())
                        .or_default()
                        .push(SeriesPoint { t, g, v });
                }
            }
        }
    }
    let mut files: Vec<_> = fs::read_dir(dir.join("eval"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    for path in files {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        view.eval.push(summarize_eval(
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            &text,
        ));
    }
    view
}

fn summarize_eval(name: String, text: &str) -> EvalFile {
    let mut file = EvalFile {
        name,
        ..EvalFile::default()
    };
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(line) else {
            file.skipped_lines += 1;
            continue;
        };
        file.games += 1;
        for (field, value) in obj {
            match value {
                Value::String(s) => {
                    *file.counts.entry(field).or_default().entry(s).or_default() += 1;
                }
                Value::Bool(b) => {
                    *file
                        .counts
                        .entry(field)
                        .or_default()
                        .entry(b.to_string())
                        .or_default() += 1;
                }
                v => {
                    if let Some(x) = v.as_f64().filter(|x| x.is_finite()) {
                        let e = sums.entry(field).or_default();
                        e.0 += x;
                        e.1 += 1;
                    }
                }
            }
        }
    }
    file.means = sums
        .into_iter()
        .map(|(k, (s, n))| (k, s / n as f64))
        .collect();
    file
}
