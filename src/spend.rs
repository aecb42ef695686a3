//! The spend port: the dollars the guard's notes and the status line show,
//! in the one shape both read. `crate::usage::Spend` answers it from the
//! incremental aggregate; tests, benchmarks and `cairn demo` answer it with
//! fixed figures.
//!
//! A leaf below the guard, the status line and usage: each of them would
//! otherwise own the trait and make the others import a feature for it.

use std::path::Path;

/// A session's spend, as the aggregate prices it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SessionSpend {
    /// Main thread and subagents.
    pub total_usd: f64,
    pub main_usd: f64,
    pub subagents: u32,
    pub subagents_usd: f64,
    /// Some tokens were of a model the price table does not know and count
    /// for nothing: the figures are a floor (shown with a `+`).
    pub unpriced: bool,
}

/// Today's spend.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TodaySpend {
    /// Every session today plus memory extraction.
    pub total_usd: f64,
    pub memory_usd: f64,
    /// Some of today's sessions are still being read (a first render on a
    /// day of long sessions): the figure is a floor (shown with a `+`).
    pub partial: bool,
    /// What could not be read on the way (a session file, a day index),
    /// for the caller to log as it logs its own trouble.
    pub problems: Vec<String>,
}

/// Where the dollars come from.
pub trait SpendSource {
    /// The spend of the session whose main transcript is `transcript`.
    /// `Ok(None)`: nothing to show yet.
    fn session(&self, transcript: &Path) -> Result<Option<SessionSpend>, String>;
    /// Today's spend, every session and memory extraction.
    fn today(&self) -> Result<Option<TodaySpend>, String>;
}

/// No pricing: a guard note gives the subagent count only, the status line
/// leaves its cost segments out.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unpriced;

impl SpendSource for Unpriced {
    fn session(&self, _: &Path) -> Result<Option<SessionSpend>, String> {
        Ok(None)
    }
    fn today(&self) -> Result<Option<TodaySpend>, String> {
        Ok(None)
    }
}

/// Fixed figures (tests, benchmarks, `cairn demo`).
#[derive(Debug, Clone, Default)]
pub struct Fixed {
    pub session: Option<SessionSpend>,
    pub today: Option<TodaySpend>,
}

impl SpendSource for Fixed {
    fn session(&self, _: &Path) -> Result<Option<SessionSpend>, String> {
        Ok(self.session)
    }
    fn today(&self) -> Result<Option<TodaySpend>, String> {
        Ok(self.today.clone())
    }
}
