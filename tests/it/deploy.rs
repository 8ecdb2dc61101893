//! deploy/kubernetes.yaml, read as Kubernetes would: every document is a
//! known kind, there is exactly one trainer, workers get unique ids and
//! keep their spool, every container's arguments (with `$(VAR)` expanded
//! from its environment) are accepted by the binary's own parser, and every
//! variable it refers to is defined.

use crate::common;

use std::collections::BTreeMap;

use common::cli::yz;
use yaml_rust2::{Yaml, YamlLoader};

fn manifest() -> Vec<Yaml> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/deploy/kubernetes.yaml"
    ))
    .unwrap();
    YamlLoader::load_from_str(&text).expect("valid YAML")
}

fn named<'a>(docs: &'a [Yaml], kind: &str, name: &str) -> &'a Yaml {
    docs.iter()
        .find(|d| d["kind"].as_str() == Some(kind) && d["metadata"]["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

fn strings(y: &Yaml) -> Vec<String> {
    y.as_vec()
        .unwrap_or_else(|| panic!("not a list: {y:?}"))
        .iter()
        .map(|v| v.as_str().expect("a string").to_string())
        .collect()
}

/// `$(NAME)` replaced by `vars[NAME]`; an unknown name fails the test.
fn expand(arg: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = arg;
    while let Some(i) = rest.find("$(") {
        out += &rest[..i];
        let end = rest[i..].find(')').expect("closed $(") + i;
        let name = &rest[i + 2..end];
        out += vars
            .get(name)
            .unwrap_or_else(|| panic!("`{arg}` refers to ${name}, which the container lacks"));
        rest = &rest[end + 1..];
    }
    out + rest
}

#[test]
fn the_kubernetes_manifest_runs_one_trainer_and_workers_with_arguments_the_binary_accepts() {
    let docs = manifest();
    for d in &docs {
        let kind = d["kind"].as_str().expect("every document has a kind");
        assert!(
            ["ConfigMap", "StatefulSet", "Deployment", "Service"].contains(&kind),
            "{kind}"
        );
        let api = d["apiVersion"].as_str().unwrap();
        let want = if ["ConfigMap", "Service"].contains(&kind) {
            "v1"
        } else {
            "apps/v1"
        };
        assert_eq!(api, want, "{kind}");
    }
    let config = named(&docs, "ConfigMap", "yinsh-zero-run");
    let mut config_vars = BTreeMap::new();
    for (k, v) in config["data"].as_hash().unwrap() {
        config_vars.insert(
            k.as_str().unwrap().to_string(),
            v.as_str().unwrap().to_string(),
        );
    }
    assert!(config_vars["RUN_URL"].starts_with("s3://"));

    let trainer = named(&docs, "StatefulSet", "yinsh-zero-trainer");
    assert_eq!(trainer["spec"]["replicas"].as_i64(), Some(1), "one trainer");
    let workers = named(&docs, "StatefulSet", "yinsh-zero-worker");
    assert!(workers["spec"]["replicas"].as_i64().unwrap() >= 1);
    let dashboard = named(&docs, "Deployment", "yinsh-zero-dashboard");

    let mut subcommands = Vec::new();
    for (set, role) in [
        (trainer, "trainer"),
        (workers, "worker"),
        (dashboard, "dashboard"),
    ] {
        let spec = &set["spec"];
        let labels = &spec["template"]["metadata"]["labels"];
        assert_eq!(labels, &spec["selector"]["matchLabels"], "{role}");
        let c = &spec["template"]["spec"]["containers"][0];
        // The container's environment: the ConfigMap, the Secret's keys
        // (their values are the cluster's), and its own variables.
        let mut vars = config_vars.clone();
        for from in c["envFrom"].as_vec().unwrap() {
            if let Some(name) = from["secretRef"]["name"].as_str() {
                assert_eq!(name, "yinsh-zero-store", "{role}");
                vars.insert("AWS_ACCESS_KEY_ID".into(), "key".into());
                vars.insert("AWS_SECRET_ACCESS_KEY".into(), "secret".into());
            }
        }
        for e in c["env"].as_vec().map(|v| v.as_slice()).unwrap_or_default() {
            let field = e["valueFrom"]["fieldRef"]["fieldPath"].as_str();
            vars.insert(
                e["name"].as_str().unwrap().into(),
                field.map_or_else(
                    || e["value"].as_str().unwrap().to_string(),
                    |_| format!("{role}-0"),
                ),
            );
        }
        assert!(
            vars.contains_key("AWS_SECRET_ACCESS_KEY"),
            "{role} has no credentials"
        );
        let command = strings(&c["command"]);
        assert_eq!(command, ["/usr/local/bin/yinsh-zero"], "{role}");
        let args: Vec<String> = strings(&c["args"])
            .iter()
            .map(|a| expand(a, &vars))
            .collect();
        // Mounted volumes exist in the pod or its claim templates.
        let mut volumes: Vec<&str> = spec["template"]["spec"]["volumes"]
            .as_vec()
            .map(|v| v.iter().map(|v| v["name"].as_str().unwrap()).collect())
            .unwrap_or_default();
        if let Some(claims) = spec["volumeClaimTemplates"].as_vec() {
            volumes.extend(
                claims
                    .iter()
                    .map(|c| c["metadata"]["name"].as_str().unwrap()),
            );
        }
        for m in c["volumeMounts"].as_vec().unwrap() {
            let name = m["name"].as_str().unwrap();
            assert!(
                volumes.contains(&name),
                "{role}: volume {name} is not defined"
            );
            let path = m["mountPath"].as_str().unwrap();
            assert!(
                args.iter().any(|a| a == path),
                "{role}: {path} is mounted but unused"
            );
        }
        // The binary's own parser accepts the arguments (`--help` last
        // stops it before it would start work).
        let out = yz(args.iter().map(String::as_str).chain(["--help"]));
        assert!(
            out.status.success(),
            "{role}: {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let parse_error = yz(args.iter().map(String::as_str).chain(["--no-such-flag"]));
        assert!(!parse_error.status.success(), "the check can fail");
        subcommands.push(args[0].clone());
        assert!(args.contains(&config_vars["RUN_URL"]), "{role}: {args:?}");
    }
    assert_eq!(subcommands, ["train", "worker", "serve"]);
    // Workers are named by their pods, and keep their spool on a claim.
    let wargs = strings(&workers["spec"]["template"]["spec"]["containers"][0]["args"]);
    let id = wargs.iter().position(|a| a == "--id").unwrap();
    assert_eq!(wargs[id + 1], "$(POD_NAME)");
    let claims = workers["spec"]["volumeClaimTemplates"].as_vec().unwrap();
    assert!(
        claims
            .iter()
            .any(|c| c["metadata"]["name"].as_str() == Some("spool"))
    );
    // The dashboard is reachable through a Service and holds the store's
    // keys: read-only, so no request can make it play, load or open.
    let dargs = strings(&dashboard["spec"]["template"]["spec"]["containers"][0]["args"]);
    assert!(dargs.iter().any(|a| a == "--read-only"), "{dargs:?}");
    assert!(
        !dargs.iter().any(|a| a == "--allow-remote-play"),
        "{dargs:?}"
    );
    let trainer_args = strings(&trainer["spec"]["template"]["spec"]["containers"][0]["args"]);
    assert!(
        trainer_args
            .windows(2)
            .any(|w| w == ["--selfplay", "workers"]),
        "{trainer_args:?}"
    );
}
