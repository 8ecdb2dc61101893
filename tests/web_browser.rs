//! The play page in a real browser: Debian's chromium, driven by
//! playwright-core (`tests/web/play.mjs`), against the real server binary.
//! Plays whole games through clicks alone (placements, moves, a row and a
//! ring removed by the human), checks the outcome shown, reviews the game
//! from its move list and takes screenshots.
//!
//! Needs `/usr/bin/chromium` (or `$CHROMIUM`), `node`, and
//! `npm ci --prefix tests/web`; `.ci/run` installs them. Without them the
//! test fails and says what is missing, unless `YINSH_SKIP_BROWSER=1`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Kills the server when the test ends, however it ends.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn missing_prerequisites(web: &Path) -> Vec<String> {
    let mut missing = Vec::new();
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        missing.push(format!(
            "no chromium at {chromium} (install it: apt-get update && apt-get install -y chromium)"
        ));
    }
    if Command::new("node").arg("--version").output().is_err() {
        missing.push("no `node` on PATH".into());
    }
    if !web.join("node_modules/playwright-core").is_dir() {
        missing.push(format!(
            "no {}/node_modules/playwright-core (run: npm ci --prefix tests/web)",
            web.display()
        ));
    }
    missing
}

#[test]
fn a_whole_game_is_played_through_clicks_in_chromium() {
    let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/web");
    let missing = missing_prerequisites(&web);
    if !missing.is_empty() {
        if std::env::var("YINSH_SKIP_BROWSER").is_ok_and(|v| v == "1") {
            eprintln!("SKIPPED (YINSH_SKIP_BROWSER=1): {}", missing.join("; "));
            return;
        }
        panic!(
            "the browser test cannot run: {}. Set YINSH_SKIP_BROWSER=1 to skip it.",
            missing.join("; ")
        );
    }

    let mut child = Command::new(env!("CARGO_BIN_EXE_yinsh-zero"))
        .args(["serve", "--port", "0", "--player", "random"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the server");
    let stdout = child.stdout.take().expect("piped stdout");
    let _server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read the server's first line");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("the server did not print its address: `{line}`"))
        .to_string();

    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let prefix = shots.join("play");
    let out = Command::new("node")
        .arg(web.join("play.mjs"))
        .arg(&url)
        .arg(&prefix)
        .current_dir(&web)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        out.status.success(),
        "the browser test failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("\"rowByClick\":true") && stdout.contains("\"ringByClick\":true"));
    for shot in ["play-mid.png", "play-end.png"] {
        let p = shots.join(shot);
        let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
        assert!(
            len > 10_000,
            "screenshot {} is missing or empty",
            p.display()
        );
        println!("screenshot: {}", p.display());
    }
}
