//! The run store against two real S3 servers on 127.0.0.1, s3s-fs and
//! moto (tests/it/common/s3.rs, tests/it/common/moto.rs): objects round-trip, a
//! create-only write never replaces an object, a missing bucket and (on
//! s3s-fs, which checks signatures) wrong credentials are refused by name,
//! and an outage is waited out and reported.

use crate::common;

use std::time::Duration;

use common::s3::{Kind, TestS3, start};
use yinsh_zero::store::{Backoff, Store, StoreError};

/// `location` with the server's settings (not the process environment,
/// which the two tests here would share), with `changed` replacing some.
fn open(server: &dyn TestS3, location: &str, changed: &[(&str, &str)]) -> Store {
    let mut env = server.env();
    for (k, v) in &mut env {
        if let Some((_, new)) = changed.iter().find(|(c, _)| c == k) {
            *v = new.to_string();
        }
    }
    Store::open_with(location, &env).unwrap()
}

fn the_store_speaks_s3_refuses_bad_credentials_and_waits_out_an_outage(kind: Kind) {
    let mut server = start(kind, "runs");
    let server = &mut *server;
    let store = open(server, "s3://runs/exp/one", &[]);
    assert_eq!(store.url(), "s3://runs/exp/one");

    // Round trip, listing relative to the run's prefix.
    assert_eq!(store.get("checkpoints/best").unwrap(), None);
    store.put("checkpoints/best", b"000001\n".to_vec()).unwrap();
    store.put("checkpoints/best", b"000002\n".to_vec()).unwrap();
    assert_eq!(store.get("checkpoints/best").unwrap().unwrap(), b"000002\n");

    // A create-only write (If-None-Match: *) makes a new object once and
    // never replaces it.
    assert!(
        store
            .put_new("data/selfplay/w-a-000001.bin", vec![7; 1000])
            .unwrap()
    );
    assert!(
        !store
            .put_new("data/selfplay/w-a-000001.bin", vec![9; 10])
            .unwrap(),
        "{kind:?}: a second create-only write of a name was taken"
    );
    assert_eq!(
        store.get("data/selfplay/w-a-000001.bin").unwrap().unwrap(),
        vec![7; 1000],
        "{kind:?}: a create-only write replaced an object"
    );
    store
        .put("data/selfplay/w-a-000002.bin", vec![8; 10])
        .unwrap();
    assert_eq!(
        store.list("data/selfplay/").unwrap(),
        vec![
            ("data/selfplay/w-a-000001.bin".to_string(), 1000),
            ("data/selfplay/w-a-000002.bin".to_string(), 10)
        ]
    );
    // The object is in the bucket under the run's prefix.
    let bucket = open(server, "s3://runs", &[]);
    assert_eq!(
        bucket
            .get("exp/one/data/selfplay/w-a-000001.bin")
            .unwrap()
            .unwrap()
            .len(),
        1000
    );
    store.delete("data/selfplay/w-a-000002.bin").unwrap();
    store.delete("data/selfplay/w-a-000002.bin").unwrap();
    assert_eq!(store.list("data/selfplay").unwrap().len(), 1);
    // Another run's prefix sees nothing of this one.
    assert!(
        open(server, "s3://runs/exp/two", &[])
            .list("")
            .unwrap()
            .is_empty()
    );

    // A bucket that does not exist: a clear error naming the URL.
    let e = open(server, "s3://nobucket/x", &[]).list("").unwrap_err();
    assert!(matches!(e, StoreError::NoBucket { .. }), "{kind:?}: {e}");
    assert!(e.to_string().starts_with("s3://nobucket/x: "), "{e}");

    // Wrong credentials: refused at once, naming the URL (by a server that
    // checks them: tests/it/common/moto.rs says why moto here does not).
    if server.checks_signatures() {
        wrong_credentials_are_refused(server);
    }

    // An outage: with a time limit the store gives up, naming the URL...
    server.stop();
    let patient = open(server, "s3://runs/exp/one", &[]).with_backoff(Backoff {
        first: Duration::from_millis(50),
        longest: Duration::from_millis(200),
        give_up_after: Some(Duration::from_millis(500)),
    });
    let e = patient.get("checkpoints/best").unwrap_err();
    assert!(matches!(e, StoreError::Failed { .. }), "{kind:?}: {e}");
    assert!(e.to_string().starts_with("s3://runs/exp/one: "), "{e}");
    // ...and without one it waits until the server is back.
    let waiting = open(server, "s3://runs/exp/one", &[]).with_backoff(Backoff {
        first: Duration::from_millis(100),
        longest: Duration::from_millis(400),
        give_up_after: None,
    });
    let waiting = std::thread::spawn(move || {
        waiting
            .put("data/selfplay/w-b-000001.bin", vec![5; 100])
            .unwrap();
        waiting
            .get("data/selfplay/w-b-000001.bin")
            .unwrap()
            .unwrap()
    });
    std::thread::sleep(Duration::from_secs(1));
    server.resume();
    assert_eq!(waiting.join().unwrap(), vec![5; 100]);
    assert_eq!(store.get("checkpoints/best").unwrap().unwrap(), b"000002\n");
}

/// A wrong secret, and an unknown key: refused at once, naming the URL.
fn wrong_credentials_are_refused(server: &dyn TestS3) {
    let kind = server.kind();
    let e = open(
        server,
        "s3://runs/exp/one",
        &[("AWS_SECRET_ACCESS_KEY", "wrong-secret")],
    )
    .get("checkpoints/best")
    .unwrap_err();
    assert!(matches!(e, StoreError::Denied { .. }), "{kind:?}: {e}");
    assert!(
        e.to_string().contains("s3://runs/exp/one: access denied"),
        "{e}"
    );
    let e = open(
        server,
        "s3://runs/exp/one",
        &[
            ("AWS_ACCESS_KEY_ID", "nobody"),
            ("AWS_SECRET_ACCESS_KEY", "wrong-secret"),
        ],
    )
    .put("x", vec![1])
    .unwrap_err();
    assert!(matches!(e, StoreError::Denied { .. }), "{kind:?}: {e}");
}

#[test]
fn the_store_speaks_s3_on_s3s_fs() {
    the_store_speaks_s3_refuses_bad_credentials_and_waits_out_an_outage(Kind::S3sFs);
}

#[test]
fn the_store_speaks_s3_on_moto() {
    the_store_speaks_s3_refuses_bad_credentials_and_waits_out_an_outage(Kind::Moto);
}
