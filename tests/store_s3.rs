//! The run store against a real S3 server (s3s-fs on 127.0.0.1): objects
//! round-trip, wrong credentials and a missing bucket are refused by name,
//! and an outage is waited out and reported.

mod common;

use std::time::Duration;

use common::s3::S3Server;
use yinsh_zero::store::{Backoff, Store, StoreError};

// The environment is per process: every case here shares one server and
// sets the same variables, so they run in one test.
#[test]
fn the_store_speaks_s3_refuses_bad_credentials_and_waits_out_an_outage() {
    let mut server = S3Server::start("runs");
    server.export_env();
    let store = Store::open("s3://runs/exp/one").unwrap();
    assert_eq!(store.url(), "s3://runs/exp/one");

    // Round trip, listing relative to the run's prefix.
    assert_eq!(store.get("checkpoints/best").unwrap(), None);
    store.put("checkpoints/best", b"000001\n".to_vec()).unwrap();
    store.put("checkpoints/best", b"000002\n".to_vec()).unwrap();
    assert_eq!(store.get("checkpoints/best").unwrap().unwrap(), b"000002\n");
    assert!(
        store
            .put_new("data/selfplay/w-a-000001.bin", vec![7; 1000])
            .unwrap()
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
    assert!(
        server
            .object_path("runs", "exp/one/data/selfplay/w-a-000001.bin")
            .is_file(),
        "the object is in the bucket under the run's prefix"
    );
    store.delete("data/selfplay/w-a-000002.bin").unwrap();
    assert_eq!(store.list("data/selfplay").unwrap().len(), 1);
    // Another run's prefix sees nothing of this one.
    assert!(
        Store::open("s3://runs/exp/two")
            .unwrap()
            .list("")
            .unwrap()
            .is_empty()
    );

    // A bucket that does not exist: a clear error naming the URL.
    let e = Store::open("s3://nobucket/x")
        .unwrap()
        .list("")
        .unwrap_err();
    assert!(matches!(e, StoreError::NoBucket { .. }), "{e}");
    assert!(e.to_string().starts_with("s3://nobucket/x: "), "{e}");

    // Wrong credentials: refused at once, naming the URL.
    unsafe { std::env::set_var("AWS_SECRET_ACCESS_KEY", "wrong-secret") };
    let e = Store::open("s3://runs/exp/one")
        .unwrap()
        .get("checkpoints/best")
        .unwrap_err();
    assert!(matches!(e, StoreError::Denied { .. }), "{e}");
    assert!(
        e.to_string().contains("s3://runs/exp/one: access denied"),
        "{e}"
    );
    unsafe { std::env::set_var("AWS_ACCESS_KEY_ID", "nobody") };
    let e = Store::open("s3://runs/exp/one")
        .unwrap()
        .put("x", vec![1])
        .unwrap_err();
    assert!(matches!(e, StoreError::Denied { .. }), "{e}");
    server.export_env();

    // An outage: with a time limit the store gives up, naming the URL...
    server.stop();
    let patient = Store::open("s3://runs/exp/one")
        .unwrap()
        .with_backoff(Backoff {
            first: Duration::from_millis(50),
            longest: Duration::from_millis(200),
            give_up_after: Some(Duration::from_millis(500)),
        });
    let e = patient.get("checkpoints/best").unwrap_err();
    assert!(matches!(e, StoreError::Failed { .. }), "{e}");
    assert!(e.to_string().starts_with("s3://runs/exp/one: "), "{e}");
    // ...and without one it waits until the server is back.
    let waiting = std::thread::spawn(|| {
        let store = Store::open("s3://runs/exp/one")
            .unwrap()
            .with_backoff(Backoff {
                first: Duration::from_millis(100),
                longest: Duration::from_millis(400),
                give_up_after: None,
            });
        store
            .put("data/selfplay/w-b-000001.bin", vec![5; 100])
            .unwrap();
        store.get("data/selfplay/w-b-000001.bin").unwrap().unwrap()
    });
    std::thread::sleep(Duration::from_secs(1));
    server.resume();
    assert_eq!(waiting.join().unwrap(), vec![5; 100]);
    assert_eq!(store.get("checkpoints/best").unwrap().unwrap(), b"000002\n");
}
