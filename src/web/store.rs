//! The games of one kind a server holds, in memory, the least recently
//! used dropped beyond a bound.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;

use super::api::{ApiError, lock};

struct Entry<T> {
    game: Arc<Mutex<T>>,
    last_used: u64,
}

/// The games of one kind the server holds, the least recently used one
/// dropped beyond `max`.
pub struct Games<T> {
    map: Mutex<HashMap<String, Entry<T>>>,
    clock: AtomicU64,
    max: usize,
}

impl<T> Games<T> {
    pub fn new(max: usize) -> Games<T> {
        Games {
            map: Mutex::new(HashMap::new()),
            clock: AtomicU64::new(0),
            max: max.max(1),
        }
    }

    pub fn get(&self, id: &str) -> Result<Arc<Mutex<T>>, ApiError> {
        let mut games = lock(&self.map);
        let tick = self.clock.fetch_add(1, Ordering::Relaxed);
        match games.get_mut(id) {
            Some(e) => {
                e.last_used = tick;
                Ok(e.game.clone())
            }
            None => Err(ApiError::new(
                StatusCode::NOT_FOUND,
                format!("no game `{id}` (games are kept in memory; start a new one)"),
            )),
        }
    }

    pub fn insert(&self, game: T) -> (String, Arc<Mutex<T>>) {
        let mut games = lock(&self.map);
        while games.len() >= self.max {
            let oldest = games
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => games.remove(&k),
                None => break,
            };
        }
        let id = loop {
            let id = format!("{:016x}", rand::random::<u64>());
            if !games.contains_key(&id) {
                break id;
            }
        };
        let game = Arc::new(Mutex::new(game));
        let tick = self.clock.fetch_add(1, Ordering::Relaxed);
        games.insert(
            id.clone(),
            Entry {
                game: game.clone(),
                last_used: tick,
            },
        );
        (id, game)
    }
}
