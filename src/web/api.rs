//! The answers every route shares: errors as `{"error": message}` with
//! their status, JSON bodies read and written, and the lock every handler
//! takes. The ground floor of the web layer: it imports nothing of it.

use std::sync::Mutex;

use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::error::GameError;

/// A poisoned lock only means a panic elsewhere; the data is still whole
/// (every change is applied after its checks), so keep serving.
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Longest error message an answer carries: a message quotes what the
/// caller sent (a spec, a move) and must not turn a 5 MB request into a
/// 5 MB answer.
const MAX_ERROR_CHARS: usize = 400;

/// An error answer: a status and `{"error": message}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: crate::util::excerpt::clip(&message.into(), MAX_ERROR_CHARS),
            retry_after: None,
        }
    }

    /// 503 with `Retry-After: seconds`.
    pub fn busy(message: &str, seconds: u64) -> ApiError {
        ApiError {
            retry_after: Some(seconds),
            ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message)
        }
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        let status = match &e {
            GameError::Opponent(_)
            | GameError::NotOffered(_)
            | GameError::Unavailable(_)
            | GameError::ThinkTooLong { .. }
            | GameError::BadTime { .. } => StatusCode::BAD_REQUEST,
            GameError::BadRequest(_) => StatusCode::BAD_REQUEST,
            GameError::Illegal(_) => StatusCode::UNPROCESSABLE_ENTITY,
            GameError::EngineBug { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            GameError::GameOver
            | GameError::EngineToAct(_)
            | GameError::HumanToAct(_)
            | GameError::NoEngine
            | GameError::EngineBusy
            | GameError::NothingToUndo => StatusCode::CONFLICT,
        };
        ApiError::new(status, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut answer =
            (self.status, axum::Json(json!({ "error": self.message }))).into_response();
        if let Some(s) = self.retry_after {
            answer
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from(s));
        }
        answer
    }
}

/// Reads a JSON body, answering 400 with serde's words when it does not fit.
pub fn body<T: for<'de> Deserialize<'de>>(bytes: &Bytes) -> Result<T, ApiError> {
    let text = if bytes.iter().all(u8::is_ascii_whitespace) {
        &b"{}"[..]
    } else {
        &bytes[..]
    };
    serde_json::from_slice(text).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("malformed request body: {e}"),
        )
    })
}

pub fn ok<T: Serialize>(value: T) -> Response {
    axum::Json(value).into_response()
}

/// A failure of the server's own (it is logged; the answer says no more).
pub fn internal(e: impl std::fmt::Display) -> ApiError {
    eprintln!("web: internal error: {e}");
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
}

/// The largest request body: every request the pages send is a few hundred
/// bytes; a review's SGF record a few kilobytes.
pub const MAX_BODY_BYTES: usize = 256 * 1024;
